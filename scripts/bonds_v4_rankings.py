"""The ranking changes Bonds v4's rules (issue 43) make on the demo data: every demo offer's figures under
the rules before (bonds/finance as of the commit Bonds v4 started from, read from git) and now, and how
each offer's place in the default order (best net_annualized_return first) moved.

    .venv/bin/python scripts/bonds_v4_rankings.py [--date YYYY-MM-DD] [--top 25] [--base <commit>]

Nothing is written: the demo offers, issuers and projection snapshot are built in memory (the same
functions `manage.py load_demo` uses). The tags say which rules touch an offer (one offer can carry
several): `settlement` (ordered on a weekend or a holiday: every offer), `iof-coupon` (a coupon within 30
days that paid IOF before), `fgc` (covered probability changed), `instalments` (Renda+/Educa+), `copom`
(CDI- or Selic-linked: the meeting path), `credit` (payment probability changed). `amount` and `horizon`
change nothing without those parameters, and Tesouro Reserva's terms change no figure.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from datetime import date
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]
BASE = "8a29487"  # the commit Bonds v4 started from
OLD_PACKAGE = "bonds_v3_finance"


def old_finance(base: str) -> ModuleType:
    """bonds/finance as of `base`, importable as its own package (its imports renamed)."""
    folder = Path(tempfile.mkdtemp(prefix="bonds-v3-")) / OLD_PACKAGE
    folder.mkdir()
    names = subprocess.run(
        ["git", "ls-tree", "--name-only", base, "bonds/finance/"], cwd=ROOT, capture_output=True, text=True,
        check=True,
    ).stdout.split()  # fmt: skip
    for name in names:
        text = subprocess.run(
            ["git", "show", f"{base}:{name}"], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout
        (folder / Path(name).name).write_text(text.replace("bonds.finance", OLD_PACKAGE), encoding="utf-8")
    sys.path.insert(0, str(folder.parent))
    import importlib

    return importlib.import_module(OLD_PACKAGE)


def old_projection(old: ModuleType, snapshot) -> object:
    """bonds.projections.projection_of as it was: only the meetings Focus names, then the line."""
    calendar = old.calendar_with_fallback(snapshot.copom_calendar)
    meetings: dict[date, float] = {}
    for code, median in sorted(snapshot.selic_by_meeting.items(), key=lambda item: old.meeting_key(item[0])):
        dated = old.dated_meeting(code, calendar)
        if dated is not None and dated.day >= snapshot.date and dated.day not in meetings:
            meetings[dated.day] = float(median) / 100
    return old.Projection(
        selic_by_year={int(y): float(v) / 100 for y, v in snapshot.selic_by_year.items()},
        ipca_by_year={int(y): float(v) / 100 for y, v in snapshot.ipca_by_year.items()},
        selic_current=snapshot.selic_current / 100,
        ipca_12m=snapshot.ipca_12m / 100,
        selic_by_meeting=meetings,
        cdi_gap=snapshot.cdi_gap / 100,
        as_of=snapshot.date,
    )


def old_figures(old: ModuleType, bond, today: date, projection) -> tuple:
    """The figures as bonds.figures.bond_figures computed them before Bonds v4."""
    from bonds.figures import bond_probability

    result = old.offer_returns(
        index=bond.index, rate=bond.rate, start=today, maturity=bond.maturity_date, projection=projection,
        tax_free=bond.tax_free,
        custody_fee=old.custody_fee_rate(product=bond.product, index=bond.index, amount=bond.min_investment,
                                         name=bond.name),
        coupon=old.coupon_terms(name=bond.name, index=bond.index, coupon_months=bond.coupon_months),
    )  # fmt: skip
    years = max(0, (bond.maturity_date - today).days) / 365.25
    # The old credit curve: bond_probability reads the current finance; recompute with the old one.
    national = bond.issuer is not None and bond.rating == bond.issuer.rating
    sovereign = bond.product in ("td", "tpf") or (bond.issuer is not None and bond.issuer.sovereign)
    probability = old.payment_probability(bond.rating, years, sovereign=sovereign, national=national)
    del bond_probability
    covered = old.covered_payment_probability(probability, fgc_protection=bond.fgc_protection)
    coupon_iof = any(flow.iof > 0 and flow is not result.flows[-1] for flow in result.flows)
    return result.net_annualized, probability, covered, coupon_iof


def demo_bonds(today: date) -> list:
    """The demo's offers as unsaved Bond rows with their unsaved issuers (ratings as the demo loads them)."""
    from bonds.demo import BANKS, demo_offers
    from bonds.models import Bond, Issuer
    from bonds.offers import offer_values

    issuers = {code: Issuer(code=code, name=name, rating=rating) for code, name, rating, _ in BANKS}
    issuers[0] = Issuer(code=0, name="Tesouro Nacional", rating="brAAA", sovereign=True)
    bonds = []
    for offer in demo_offers(today=today):
        issuer = issuers.get(offer.bank) or Issuer(code=offer.bank, name=offer.bank_name)
        values = offer_values(offer)
        values["rating"] = offer.rating if offer.rating_given else issuer.rating
        bond = Bond(natural_key=offer.natural_key, **values)
        bond.issuer = issuer
        bonds.append(bond)
    return bonds


def ranks(nets: list[float | None], bonds: list) -> list[int]:
    order = sorted(
        range(len(bonds)),
        key=lambda i: (
            nets[i] is None,
            -(nets[i] or 0),
            bonds[i].name,
            bonds[i].bank,
            bonds[i].maturity_date,
        ),
    )
    place = [0] * len(bonds)
    for position, i in enumerate(order, start=1):
        place[i] = position
    return place


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--date", type=date.fromisoformat, default=None, help="the demo's day (default today)"
    )
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--base", default=BASE, help="the commit whose bonds/finance is 'before'")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.utils import timezone

    from bonds import finance
    from bonds.demo import demo_snapshot
    from bonds.figures import bond_figures
    from bonds.projections import projection_of

    today = args.date or timezone.localdate()
    old = old_finance(args.base)
    snapshot = demo_snapshot(today)
    bonds = demo_bonds(today)
    new_projection, previous_projection = projection_of(snapshot), old_projection(old, snapshot)
    before = [old_figures(old, bond, today, previous_projection) for bond in bonds]
    after = [bond_figures(bond=bond, today=today, projection=new_projection) for bond in bonds]
    old_rank = ranks([b[0] for b in before], bonds)
    new_rank = ranks([a[0] for a in after], bonds)
    weekend = finance.settlement_date(today) != today

    def tags(i: int) -> list[str]:
        bond, coupon_iof, figures = bonds[i], before[i][3], after[i]
        found = ["settlement"] if weekend else []
        found += ["iof-coupon"] if coupon_iof else []
        found += ["fgc"] if figures[5] is not None and figures[5] < 1 else []
        found += ["instalments"] if figures[6] == "instalments" else []
        found += ["copom"] if bond.index[:3] in ("cdi", "sel") else []
        # The credit curve itself (not the two days a weekend order takes off the term).
        years = max(0, (bond.maturity_date - finance.settlement_date(today)).days) / 365.25
        curve_before = old.payment_probability(bond.rating, years, national=True)
        changed = curve_before is not None and figures[2] != 1.0 and round(curve_before, 6) != figures[2]
        found += ["credit"] if changed else []
        return found

    moved = [i for i in range(len(bonds)) if old_rank[i] != new_rank[i]]
    print(
        f"Demo of {today} ({len(bonds)} offers), settlement {finance.settlement_date(today)}; "
        f"before = {args.base}"
    )
    print(f"Offers whose place moved: {len(moved)}; rank positions moved in all: "
          f"{sum(abs(old_rank[i] - new_rank[i]) for i in range(len(bonds)))}")  # fmt: skip
    summary: dict[str, list[int]] = {}
    for i in range(len(bonds)):
        for tag in tags(i):
            summary.setdefault(tag, []).append(i)
    print("\nBy rule (an offer may count under several):")
    for tag, members in sorted(summary.items()):
        deltas = [(after[i][0] or 0) - (before[i][0] or 0) for i in members]
        positions = sum(abs(old_rank[i] - new_rank[i]) for i in members)
        low, high = min(deltas) * 100, max(deltas) * 100
        print(f"  {tag:12} {len(members):4} offers, net {low:+.2f} to {high:+.2f} pp, {positions} positions")
    print(f"\nThe {args.top} largest changes of net_annualized_return:")
    print(f"  {'offer':58} {'net before':>10} {'net now':>8} {'rank':>9}  rules")
    largest = sorted(range(len(bonds)), key=lambda i: -abs((after[i][0] or 0) - (before[i][0] or 0)))
    for i in largest[: args.top]:
        was, now = before[i][0], after[i][0]
        print(f"  {bonds[i].name[:58]:58} {(was or 0) * 100:9.2f}% {(now or 0) * 100:7.2f}% "
              f"{old_rank[i]:>4}→{new_rank[i]:<4} {','.join(tags(i))}")  # fmt: skip
    covered = [i for i in range(len(bonds)) if bonds[i].fgc_protection]
    print("\nFGC-covered offers, largest falls of covered_payment_probability (for the minimum investment):")
    for i in sorted(covered, key=lambda i: after[i][4] - before[i][2])[:5]:
        print(f"  {bonds[i].name[:58]:58} {before[i][2]:.6f} → {after[i][4]:.6f}  share {after[i][5]}")


if __name__ == "__main__":
    main()
