"""GET /bonds/api/{id}/projection (operation `projectBond`): what MCP `project_bond` answers, over REST.
The same figures and JSON (`bonds.mcp.project.bond_projection`), the same statuses as the list (a key of an
account with an active subscription: `ok`; no key: `preview`; the 5-second rule), always HTTP 200 with the
status also in `X-Ponte-Status`; bad input is `bad_request` and an unknown id `not_found`, in the bonds
error shape (core.errors)."""

from __future__ import annotations

from datetime import date

from django.http import HttpResponseBase, JsonResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.permissions import AllowAny
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.views import APIView

from accounts.authentication import bearer_or_query_key
from accounts.netaddr import client_address
from bonds.access import bonds_access_status
from bonds.api import STATUS_HEADER
from bonds.filter_fields import AmountField, IsoDateField
from bonds.mcp import project, reads
from core.errors import NotFound, ValidationFailed

MAX_AMOUNT = 1_000_000_000_000.0


def projection_amount(values: list[str]) -> float:
    """The `amount` (required): a positive decimal with a point, at most MAX_AMOUNT."""
    amount = AmountField().to_python(values[-1]) if values else None
    if amount is None or amount > MAX_AMOUNT:
        raise ValidationFailed(
            "amount: give the BRL to invest as a positive decimal with a point (10000 or 2500.50), "
            "at most 1000000000000."
        )
    return amount


def projection_horizon(values: list[str]) -> date | None:
    """The optional `horizon` (YYYY-MM-DD, a real date): when the money would be redeemed."""
    if not values or not values[-1].strip():
        return None
    horizon = IsoDateField().to_python(values[-1])
    if horizon is None:
        raise ValidationFailed("horizon: give the exit day as YYYY-MM-DD (a real date), or leave it out.")
    return horizon


class BondProjectionApi(APIView):
    """What `amount` invested now in one bond becomes (MCP project_bond's answer)."""

    authentication_classes: list = []
    permission_classes = [AllowAny]
    throttle_classes: list = []
    renderer_classes = [JSONRenderer]

    def perform_authentication(self, request: Request) -> None:
        pass  # the key is bonds_access_status's business, as on the list (docs/decisions/0007)

    @extend_schema(
        operation_id="projectBond",
        summary="Project an amount invested in one bond",
        parameters=[
            OpenApiParameter("amount", float, required=True, description="BRL invested (a decimal point)."),
            OpenApiParameter(
                "horizon",
                OpenApiTypes.DATE,
                description="Exit day: a bond redeemable at the contract rate is projected to it (income tax "
                "and IOF by the days held); others to maturity, with horizon_reachable false.",
            ),
            OpenApiParameter("key", str, description="API key (alternative to Authorization: Bearer)"),
        ],
        responses={
            (200, "application/json"): OpenApiResponse(
                response=OpenApiTypes.OBJECT,
                description="The MCP tool project_bond's result (BondProjectionResult in docs/mcp.md): "
                "status, description, bond (its row, every figure for the amount), days, tax and fee rates, "
                "amounts, returns, cash_flows, notes, assumptions; or a bonds error (`response.status`).",
            )
        },
    )
    def get(self, request: Request, bond_id: int) -> HttpResponseBase:
        query = request._request.GET
        amount = projection_amount(query.getlist("amount"))
        horizon = projection_horizon(query.getlist("horizon"))
        try:
            bond = reads.active_bond(bond_id)  # before the key: a wrong id does not use up its 5 seconds
        except reads.BondNotFound as error:
            raise NotFound(str(error).replace("Call list_bonds", "List the bonds")) from None
        key = bearer_or_query_key(
            authorization=request.META.get("HTTP_AUTHORIZATION", ""), query_key=query.get("key", "")
        )
        status = bonds_access_status(plaintext_key=key, client_ip=client_address(request._request))
        result = project.bond_projection(status=status, bond=bond, amount=amount, horizon=horizon)
        response = JsonResponse(result.model_dump(mode="json"))
        response[STATUS_HEADER] = result.status
        return response
