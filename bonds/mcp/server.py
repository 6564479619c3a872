"""The MCP server: three tools over the bond list, with typed (structured) results.

Tools are async so the SDK runs them on the event loop, where the HTTP request (headers, client
address) is at hand; the Django work runs in a worker thread through `sync_to_async`, opening and
closing its own database connection like a Django request does.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from typing import Annotated, TypeVar

from asgiref.sync import sync_to_async
from django.db import close_old_connections
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import ToolAnnotations
from pydantic import Field, ValidationError

from bonds.mcp import project, reads
from bonds.mcp.errors import readable_arguments_error
from bonds.mcp.guide import bond_guide
from bonds.mcp.schemas import (
    BondGuide,
    BondListResult,
    BondProjectionResult,
    IndexCode,
    ProductCode,
    RatingMin,
    SortOrder,
)

INSTRUCTIONS = (
    "Ponte lists active Brazilian fixed-income offers with projected net (after income tax) and real "
    "(above IPCA) annualized returns. To answer 'where should I put BRL X for N years?': call list_bonds "
    "with min_maturity/max_maturity around today + N years, amount=X, sort='net_return'; then "
    "project_bond(bond_id, X) for the details of a candidate; explain_bonds documents every field and "
    "formula. Returns are decimals (0.1165 = 11.65% a year). Every result carries a `status`: 'preview' "
    "means no API key was sent (at most 5 bonds); every status other than 'ok' and 'preview' carries no "
    "bonds and a `description` saying what to do. Keyed calls must be 5 seconds apart."
)
READ_ONLY = ToolAnnotations(
    read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)
MAX_AMOUNT = 1_000_000_000_000.0

# The investor filters shared with GET /bonds/api/ (their REST names in the tool's description).
RatingMinArgument = Annotated[
    RatingMin | None,
    Field(
        description="Only bonds rated at least this on the national scale (brAAA > brAA+ > brAA > brAA- > "
        "brA+ > ...); federal bonds (td, tpf) count as the best; bonds rated on the global scale, "
        "omitted ('-') or unrated are left out."
    ),
]
SortArgument = Annotated[
    SortOrder,
    Field(
        description="net_return (best first, default), real_return (best first), maturity (soonest), or "
        "any numeric or date field of a bond (rate, min_investment, maturity_date, payment_probability, "
        "net_annualized_return, ...), ascending, with '-' before it for descending. Bonds without a "
        "value come last; ties keep the net_return order."
    ),
]

HorizonArgument = Annotated[
    date | None,
    Field(
        description="Exit before maturity (YYYY-MM-DD): a bond redeemable at the contract rate "
        "(liquidity_kind 'redemption', after any grace period) shows its returns if redeemed that day, "
        "income tax and IOF by the days held; others keep their figures at maturity with "
        "horizon_reachable false."
    ),
]


class BondsServer(MCPServer):
    """The SDK's server, with bad arguments told in one readable sentence per field (bonds/mcp/errors.py)."""

    async def call_tool(self, name: str, arguments: dict, context: Context | None = None):
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if not isinstance(exc.__cause__, ValidationError):
                raise
            # The same cause: the SDK still logs the rejected fields' names (never their values).
            raise ToolError(readable_arguments_error(name, exc.__cause__)) from exc.__cause__


mcp = BondsServer(
    "ponte-bonds",
    title="Ponte bonds",
    description="Brazilian fixed-income offers with net and real returns.",
    instructions=INSTRUCTIONS,
    version="1.0.0",
)

T = TypeVar("T")


def _in_db_thread(function: Callable[..., T]) -> Callable[..., T]:
    """Run `function` as one unit of database work, with connections handled like a request's."""

    def run(*args, **kwargs) -> T:
        close_old_connections()
        try:
            return function(*args, **kwargs)
        finally:
            close_old_connections()

    return run


async def _off_loop(function: Callable[..., T], /, *args, **kwargs) -> T:
    # thread_sensitive=False: tool calls of different clients run in parallel worker threads.
    return await sync_to_async(_in_db_thread(function), thread_sensitive=False)(*args, **kwargs)


def _caller(ctx: Context) -> reads.Caller:
    """The caller (key and address), from the HTTP request of this call. A transport without HTTP
    (in-process, stdio) has no key: preview."""
    request = ctx.request_context.request
    headers = getattr(request, "headers", None) or {}
    client = getattr(request, "client", None)
    url = getattr(request, "url", None)
    return reads.caller_of(
        authorization=headers.get("authorization"),
        query_string=url.query if url is not None else "",
        remote_addr=client.host if client is not None else "",
        forwarded_for=headers.get("x-forwarded-for"),
    )


@mcp.tool(annotations=READ_ONLY)
async def list_bonds(
    ctx: Context,
    product: Annotated[
        list[ProductCode] | None, Field(description="Only these product types (any of them).")
    ] = None,
    index: Annotated[
        list[IndexCode] | None, Field(description="Only these index kinds (any of them).")
    ] = None,
    bank: Annotated[list[int] | None, Field(description="Only these bank/broker codes.")] = None,
    tax_free: Annotated[bool | None, Field(description="true: only tax-exempt; false: only taxed.")] = None,
    fgc: Annotated[bool | None, Field(description="true: only FGC-covered; false: only not covered.")] = None,
    min_maturity: Annotated[date | None, Field(description="Earliest maturity_date, YYYY-MM-DD.")] = None,
    max_maturity: Annotated[date | None, Field(description="Latest maturity_date, YYYY-MM-DD.")] = None,
    rating_min: RatingMinArgument = None,
    sort: SortArgument = "net_return",
    amount: Annotated[
        float | None,
        Field(
            gt=0,
            le=MAX_AMOUNT,
            description="BRL to invest: only bonds whose min_investment it meets, each with what it becomes.",
        ),
    ] = None,
    limit: Annotated[int, Field(ge=1, le=reads.MAX_LIMIT, description="Most bonds to return (1-200).")] = 20,
    horizon: HorizonArgument = None,
) -> BondListResult:
    """List active Brazilian fixed-income bonds with projected net and real annualized returns.

    The filters of GET /bonds/api/: product, index, bank, tax_free, fgc, a maturity window
    (min_maturity/max_maturity = maturity_from/maturity_to), amount (min_investment at most it),
    rating_min and sort; plus a limit. Unlike the REST API, which ignores values outside its
    lists, a value outside this schema's lists is an error naming the accepted ones. Same statuses
    as the REST API: without an API key the result is a preview of at most 5 bonds (the first of
    the filtered, sorted list; status 'preview'); with a key of an account with an active bonds
    subscription, status 'ok'. Keyed calls must be 5 seconds apart ('rate_limited'). Each bond's
    `id` is the one GET /bonds/api/ lists and project_bond takes.
    """
    if min_maturity and max_maturity and min_maturity > max_maturity:
        raise ToolError("min_maturity must not be after max_maturity.")
    request = _caller(ctx)
    filters = reads.agent_filters(
        products=list(product or []),
        indexes=list(index or []),
        banks=list(bank or []),
        tax_free=tax_free,
        fgc=fgc,
        min_maturity=min_maturity,
        max_maturity=max_maturity,
        amount=amount,
        rating_min=rating_min,
        sort=sort,
        horizon=horizon,
    )

    def work() -> BondListResult:
        return reads.bonds_for_agent(
            status=reads.caller_status(request), filters=filters, sort=sort, limit=limit
        )

    return await _off_loop(work)


@mcp.tool(annotations=READ_ONLY)
async def project_bond(
    ctx: Context,
    bond_id: Annotated[
        int, Field(description="The `id` of a bond from list_bonds (the same `id` GET /bonds/api/ lists).")
    ],
    amount: Annotated[float, Field(gt=0, le=MAX_AMOUNT, description="BRL invested today.")],
    horizon: HorizonArgument = None,
) -> BondProjectionResult:
    """Project what an amount invested today in one bond becomes at maturity.

    Gross amount, custody fee (Tesouro Direto), income tax (regressive table by days held, none for
    tax-free bonds) and net amount in BRL, with the annualized gross, net and real returns, the
    business and calendar days, and caveats. Same statuses, preview and 5-second rule as list_bonds.
    """
    request = _caller(ctx)

    def work() -> BondProjectionResult:
        # The bond first: a mistyped id is an error that does not use up the key's 5-second slot.
        bond = reads.active_bond(bond_id)
        return project.bond_projection(
            status=reads.caller_status(request), bond=bond, amount=amount, horizon=horizon
        )

    try:
        return await _off_loop(work)
    except reads.BondNotFound as error:
        raise ToolError(str(error)) from None


@mcp.tool(annotations=READ_ONLY)
async def explain_bonds() -> BondGuide:
    """Explain every bond field, product and index code, the return formulas, the income-tax table,
    the statuses and limits, the data sources, and the projections currently in use. Needs no key."""
    return await _off_loop(lambda: bond_guide(reads.latest_assumptions()))
