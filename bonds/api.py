"""GET /bonds/api/ (operation `listBonds`): always HTTP 200, the outcome in
`response.status` (JSON) or the `X-Ponte-Status` header (CSV)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, HttpResponseBase, StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.views import APIView

from accounts.authentication import bearer_key_hint, bearer_or_query_key
from accounts.netaddr import client_address
from bonds import statuses
from bonds.access import bonds_access_status
from bonds.filter_warnings import filter_warnings, pieces_with_warnings, with_warnings
from bonds.filters import BondFilterSet, parse_filters, parse_format, parse_locale
from bonds.models import Index, Product
from bonds.rendering import PT_BR
from bonds.replies import StreamedReply, bond_list_reply
from core.negotiation import QueryFormatIsOurs

STATUS_HEADER = "X-Ponte-Status"
HINT_HEADER = "X-Ponte-Auth-Hint"


def parse_bom(query: dict[str, list[str]], locale: str | None) -> bool:
    """`bom=1` starts a CSV with a UTF-8 BOM, `bom=0` does not; without it, the pt-BR CSV has one
    (Excel set to Portuguese opens it directly) and the plain CSV has none."""
    values = query.get("bom", [])
    value = values[-1].strip() if values else ""
    if value in {"0", "1"}:
        return value == "1"
    return locale == PT_BR


class BondSerializer(serializers.Serializer):
    """One Bond of the list (OpenAPI component `Bond`)."""

    id = serializers.IntegerField(
        help_text="Ponte's id of the offer: the same offer keeps it across refreshes; the `bond_id` of the "
        "MCP tool project_bond. JSON only."
    )
    name = serializers.CharField()
    bank = serializers.IntegerField()
    bank_name = serializers.CharField()
    product = serializers.ChoiceField(choices=Product.choices)
    index = serializers.ChoiceField(choices=Index.choices)
    rate = serializers.FloatField()
    fgc_protection = serializers.BooleanField()
    tax_free = serializers.BooleanField()
    exclusive = serializers.BooleanField()
    min_investment = serializers.FloatField()
    maturity_date = serializers.DateField()
    early_withdrawal = serializers.BooleanField(
        help_text="Redemption before maturity at the contract rate (a sale at the market price is not one)."
    )
    rating = serializers.CharField(allow_null=True)
    payment_probability = serializers.FloatField(
        allow_null=True, help_text="The issuer's probability of payment at maturity; federal bonds 1."
    )
    net_annualized_return = serializers.FloatField(allow_null=True)
    real_annualized_return = serializers.FloatField(allow_null=True)
    liquidity_days = serializers.IntegerField(
        allow_null=True,
        help_text="D+N: business days from a redemption order to the money; null when unknown. JSON only.",
    )
    grace_period_days = serializers.IntegerField(
        allow_null=True,
        help_text="Days after the application before a redemption is allowed; null when unknown. JSON only.",
    )
    net_return_cdi_percent = serializers.FloatField(
        allow_null=True,
        help_text=(
            "Tax-equivalent rate: the share of the projected CDI a taxed CDB over the same dates must pay "
            "to net the same as this offer (1.1 = 110% of CDI); null without a CDI projection. JSON only."
        ),
    )
    covered_payment_probability = serializers.FloatField(
        allow_null=True,
        help_text="Probability of being paid counting the FGC: in a default the FGC pays the share of what "
        "is owed then (principal plus interest, for the amount) within BRL 250,000 per taxpayer per "
        "institution; at least 0.999 while that stays under the limit; payment_probability elsewhere. "
        "JSON only.",
    )
    liquidity_kind = serializers.ChoiceField(
        choices=["redemption", "sale"],
        allow_null=True,
        help_text="How money comes back before maturity: redemption (by the issuer, at the contract rate) or "
        "sale (at the market price: Tesouro Direto, D+1); null when it does not. JSON only.",
    )
    fgc_covered_share = serializers.FloatField(
        allow_null=True,
        help_text="Share (0-1) of what is owed at maturity (for `amount`, else the minimum investment) that "
        "the FGC's BRL 250,000 covers; null where there is no FGC. JSON and CSV (after the seed's columns).",
    )
    payment_schedule = serializers.ChoiceField(
        choices=["bullet", "semiannual", "monthly", "quarterly", "annual", "instalments", "unknown"],
        help_text="How it pays: bullet (all at maturity), coupons or interest every N months, instalments "
        "(Tesouro Renda+ 240 monthly, Educa+ 60), or unknown (a debenture, CRI or CRA whose source says "
        "nothing: computed as a bullet). JSON and CSV.",
    )
    horizon_reachable = serializers.BooleanField(
        allow_null=True,
        help_text="With `horizon`: true when the money is back by then at the contract rate (a redemption "
        "after any grace period, or the maturity; the net and real returns are then if redeemed that day), "
        "false when not (figures at maturity); null without `horizon`. JSON and CSV.",
    )
    first_payment_date = serializers.DateField(
        allow_null=True,
        help_text="The first payment after settlement: a coupon, the first instalment, or the maturity's "
        "payment (maturity_date is the last payment). JSON and CSV.",
    )


# One step of the projected CDI path (OpenAPI component `CdiStep`). Its first field is `from`, a
# Python keyword, so the class is built with type().
CdiStepSerializer = type(
    "CdiStepSerializer",
    (serializers.Serializer,),
    {
        "__doc__": "One step of the projected CDI path.",
        "__module__": __name__,
        "from": serializers.DateField(help_text="First day of this step; it applies until the next step's."),
        "cdi": serializers.FloatField(help_text="Projected CDI, a year, decimal."),
        "selic": serializers.FloatField(
            help_text="Effective Selic the selic* and selic+ offers compound at (= cdi)."
        ),
        "selic_target": serializers.FloatField(help_text="Projected Selic target, a year, decimal."),
        "meeting": serializers.CharField(
            allow_null=True,
            help_text="The Copom meeting whose decision starts this step (R1/2027); else null.",
        ),
        "estimated_date": serializers.BooleanField(
            help_text="The meeting's date is estimated: not yet in BCB's calendar (a year before + 52 weeks, "
            "moved off weekends and holidays)."
        ),
        "median_source": serializers.ChoiceField(
            choices=["focus-meeting", "focus-year-end", "kept"],
            allow_null=True,
            help_text="Whence the meeting's target: its Focus median (as published), the Focus year-end "
            "median (at the year's last meeting), or kept from the previous step (Focus does not name the "
            "meeting); null for today's target.",
        ),
    },
)


class PoupancaSerializer(serializers.Serializer):
    annual_return = serializers.FloatField(
        allow_null=True,
        help_text="A savings account over the next 12 months on this path (tax-free); null without a TR.",
    )
    tr_monthly = serializers.FloatField(
        allow_null=True, help_text="The TR in force (SGS 226), decimal a month; null when none is known."
    )
    tr_date = serializers.DateField(
        allow_null=True, help_text="The day that TR's month starts (its SGS 226 `data`)."
    )
    tr_source = serializers.CharField(help_text="Where the TR comes from (SGS 226), or that it is unknown.")


class AssumptionsSerializer(serializers.Serializer):
    """What every figure of the list was computed from (OpenAPI component `Assumptions`)."""

    projection_date = serializers.DateField()
    settlement_date = serializers.DateField(
        help_text="The day an order placed now settles (today on an ANBIMA business day, else the next one): "
        "every figure counts its days, income-tax and IOF brackets and coupons from it."
    )
    survey_date = serializers.DateField(allow_null=True, help_text="Focus survey date of the annual medians.")
    meetings_survey_date = serializers.DateField(
        allow_null=True, help_text="Focus survey date of the per-meeting medians."
    )
    cdi_selic_gap = serializers.FloatField(help_text="Selic target - CDI, decimal.")
    cdi_path = CdiStepSerializer(
        many=True, help_text="From today: every cdi*, cdi+, selic* and selic+ figure compounds over it."
    )
    ipca_by_year = serializers.DictField(
        child=serializers.FloatField(), help_text="Projected IPCA per calendar year, decimal."
    )
    ipca_12m = serializers.FloatField(allow_null=True)
    poupanca = PoupancaSerializer()


class BondListApi(APIView):
    """List active bonds (JSON BondList or CSV). No key: a preview of at most 5 bonds."""

    authentication_classes: list = []
    permission_classes = [AllowAny]
    throttle_classes: list = []
    renderer_classes = [JSONRenderer]
    content_negotiation_class = QueryFormatIsOurs
    filterset_class = BondFilterSet

    OutputSerializer = inline_serializer(
        "BondList",
        fields={
            "response": inline_serializer(
                "BondListResponse",
                fields={
                    "status": serializers.ChoiceField(choices=list(statuses.REPLY_STATUSES)),
                    "description": serializers.CharField(),
                },
            ),
            "assumptions": AssumptionsSerializer(
                allow_null=True, help_text="Null when the status gives no bonds (or before any refresh)."
            ),
            "bonds": BondSerializer(many=True),
            "warnings": serializers.ListField(
                child=serializers.CharField(),
                required=False,
                help_text=(
                    "Only when a `product` or `sort` value was outside the documented lists: one sentence "
                    "per ignored value (it is ignored, not an error)."
                ),
            ),
        },
    )

    def perform_authentication(self, request: Request) -> None:
        # The key is this view's own business (bonds_access_status) and DRF's user is never read:
        # left lazy (DRF's documented `pass`), it is never built (docs/decisions/0007).
        pass

    @extend_schema(
        operation_id="listBonds",
        summary="List active bonds",
        parameters=[
            OpenApiParameter("format", str, enum=["json", "csv"], description="Default json"),
            OpenApiParameter(
                "locale", str, enum=["pt-BR"], description="With format=csv: `;`, decimal comma"
            ),
            OpenApiParameter(
                "bom",
                int,
                enum=[0, 1],
                description="With format=csv: 1 starts the file with a UTF-8 BOM (Excel); default 1 with "
                "locale=pt-BR, else 0",
            ),
            OpenApiParameter("key", str, description="API key (alternative to Authorization: Bearer)"),
        ],
        responses={
            (200, "application/json"): OpenApiResponse(response=OutputSerializer, description="BondList"),
            (200, "text/csv"): OpenApiResponse(
                response=OpenApiTypes.STR, description="format=csv, with the X-Ponte-Status header"
            ),
        },
    )
    def get(self, request: Request) -> HttpResponseBase:
        return self.list_reply(request._request)

    def list_reply(self, request: HttpRequest) -> HttpResponseBase:
        # Without a query string (the preview's usual call) Django's QueryDict is not built at all.
        query = dict(request.GET.lists()) if request.META.get("QUERY_STRING") else {}
        fmt = parse_format(query)
        locale = parse_locale(query, fmt)
        key = bearer_or_query_key(
            authorization=request.META.get("HTTP_AUTHORIZATION", ""), query_key=query.get("key", [""])[-1]
        )
        status = bonds_access_status(plaintext_key=key, client_ip=client_address(request))
        hint = bearer_key_hint(request, key)
        reply = bond_list_reply(
            status=status,
            filters=parse_filters(query),
            fmt=fmt,
            locale=locale,
            bom=fmt == "csv" and parse_bom(query, locale),
            hint=hint,
        )
        # Ignored filter values are named in the JSON reply, outside its cache (docs/decisions/0018); a CSV
        # has no room for them.
        warnings = filter_warnings(query) if fmt == "json" and query else []
        response: HttpResponseBase
        if isinstance(reply, StreamedReply):
            # A long list on a cache miss: no Content-Length, so a stream cut short by an error reaches
            # the client as an unfinished chunked body, never as a complete-looking reply.
            pieces = pieces_with_warnings(reply.pieces, warnings) if warnings else reply.pieces
            response = StreamingHttpResponse(pieces, content_type=reply.content_type)
        else:
            body = with_warnings(reply.body, warnings) if warnings else reply.body
            response = HttpResponse(body, content_type=reply.content_type)
        response[STATUS_HEADER] = reply.status
        if hint:
            response[HINT_HEADER] = hint
        return response
