"""The projected CDI path from the Copom calendar (docs/bonds.md, "The projected CDI path")."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from bonds import finance
from bonds.finance import Projection, offer_returns
from bonds.models import ProjectionSnapshot
from bonds.projections import projection_of

TODAY, ONE_YEAR = date(2026, 11, 23), date(2027, 11, 23)
# The worked path of the docs: current target 14.25%, gap 0.10 pp observed in SGS, Focus medians for
# R8/2026 (decided 9 Dec 2026) 14.00%, R1/2027 13.50%, R2/2027 13.00%; year-end medians 14.00% (2026),
# 12.25% (2027), 10.50% (2028); the 2026 calendar published, 2027's estimated.
MEDIANS = {"R8/2026": 0.14, "R1/2027": 0.135, "R2/2027": 0.13}
YEAR_END = {2026: 0.14, 2027: 0.1225, 2028: 0.105}
MEETINGS = finance.meetings_on_path(
    calendar=finance.COPOM_MEETINGS, medians=MEDIANS, year_end=YEAR_END, after=TODAY, current=0.1425
)
WORKED = Projection(
    selic_current=0.1425,
    cdi_gap=0.001,
    selic_by_meeting={meeting.day: meeting.target for meeting in MEETINGS},
    selic_by_year=YEAR_END,
    ipca_by_year={2026: 0.0446, 2027: 0.04, 2028: 0.0375},
    as_of=TODAY,
    meeting_names={meeting.day: (meeting.code, meeting.estimated, meeting.source) for meeting in MEETINGS},
)


def test_the_current_target_holds_until_the_meeting_and_its_median_applies_from_the_day_after():
    assert WORKED.cdi_on(TODAY) == pytest.approx(0.1415)
    assert WORKED.cdi_on(date(2026, 12, 9)) == pytest.approx(0.1415)  # decided that evening
    assert WORKED.cdi_on(date(2026, 12, 10)) == pytest.approx(0.139)
    assert WORKED.cdi_on(date(2026, 12, 31)) == pytest.approx(0.139)


def test_every_meeting_is_on_the_path_eight_a_year_and_one_focus_does_not_name_keeps_the_target():
    in_2027 = [meeting for meeting in MEETINGS if meeting.day.year == 2027]
    assert [meeting.code for meeting in in_2027] == [f"R{n}/2027" for n in range(1, 9)]
    assert [meeting.source for meeting in in_2027] == [
        "focus-meeting", "focus-meeting", *["kept"] * 5, "focus-year-end"
    ]  # fmt: skip
    # Each median as published: R2/2027's 13.00% holds, exactly, until R8/2027 takes 12.25%.
    assert {meeting.target for meeting in in_2027[1:7]} == {0.13}
    assert WORKED.selic_target_on(date(2027, 11, 22)) == 0.13
    assert (
        WORKED.selic_target_on(date(2027, 12, 8)) == 0.13
    )  # R8/2027 decides on the 8th, applies from the 9th
    assert WORKED.selic_target_on(date(2027, 12, 9)) == 0.1225
    assert WORKED.selic_target_on(date(2028, 12, 31)) == 0.105  # R8/2028 took the 2028 year-end median
    assert WORKED.cdi_on(date(2031, 6, 1)) == pytest.approx(0.104)  # flat after the last meeting
    assert len([meeting for meeting in MEETINGS if meeting.day.year == 2028]) == 8


def test_an_estimated_meeting_date_moves_off_a_weekend_or_a_holiday():
    # R7/2026 on Tuesday 3 November 2026 would put R7/2027 on Tuesday 2 November 2027, Finados.
    calendar = {"R7/2026": date(2026, 11, 3)}
    estimated = finance.dated_meeting("R7/2027", calendar)
    assert estimated == finance.DatedMeeting("R7/2027", date(2027, 11, 3), True)
    assert all(finance.is_business_day(meeting.day) for meeting in MEETINGS)


def test_a_projection_built_without_any_meeting_calendar_still_follows_the_year_end_medians():
    by_hand = Projection(selic_current=0.1425, selic_by_year=YEAR_END, as_of=TODAY)
    targets = [by_hand.selic_target_on(date(2027, month, 1)) for month in range(1, 13)]
    assert targets == sorted(targets, reverse=True) and len(set(targets)) == 12  # one step a month


def test_the_worked_path_of_the_docs_is_recomputed_day_by_day():
    result = offer_returns(
        index="cdi*", rate=1.0, start=TODAY, maturity=ONE_YEAR, projection=WORKED, tax_free=False
    )
    factor, day = 1.0, TODAY
    while day < ONE_YEAR:
        if finance.is_business_day(day):
            factor *= 1 + ((1 + WORKED.cdi_on(day)) ** (1 / 252) - 1) * 1.0
        day += timedelta(days=1)
    assert result.du == 250 and result.gross_factor == pytest.approx(factor, rel=1e-12)
    # The figures printed in docs/bonds.md.
    assert result.gross_factor == pytest.approx(1.130512, abs=1e-6)
    assert result.gross_annualized == pytest.approx(0.131622, abs=1e-6)
    assert result.net_annualized == pytest.approx(0.108579, abs=1e-6)
    segments = WORKED.cdi_segments(TODAY, ONE_YEAR)
    assert segments[:3] == [
        (TODAY, date(2026, 12, 10), pytest.approx(0.1415)),
        (date(2026, 12, 10), date(2027, 1, 28), pytest.approx(0.139)),
        (date(2027, 1, 28), date(2027, 3, 18), pytest.approx(0.134)),
    ]
    assert {round(cdi, 6) for _, _, cdi in segments[3:]} == {0.129}


def test_the_old_year_end_model_would_have_understated_a_short_cdi_offer():
    year_end_only = Projection(selic_by_year={2026: 0.14, 2027: 0.1225}, selic_current=0.1425)
    old = offer_returns(
        index="cdi*", rate=1.0, start=TODAY, maturity=ONE_YEAR, projection=year_end_only, tax_free=False
    )
    new = offer_returns(
        index="cdi*", rate=1.0, start=TODAY, maturity=ONE_YEAR, projection=WORKED, tax_free=False
    )
    assert new.gross_annualized - old.gross_annualized > 0.008


def test_the_cdi_is_the_target_minus_the_observed_gap_not_a_constant():
    wide = Projection(selic_current=0.1425, cdi_gap=0.0012)
    assert wide.cdi_on(TODAY) == pytest.approx(0.1413)
    assert Projection(selic_current=0.1425).cdi_on(TODAY) == pytest.approx(0.1415)  # none observed: 0.10


def test_a_meeting_focus_names_before_its_date_is_published_is_placed_52_weeks_after_the_last_one(db):
    snapshot = ProjectionSnapshot(
        date=TODAY,
        selic_current=14.25,
        cdi_gap=0.11,
        selic_by_meeting={"R7/2026": 15.0, "R8/2026": 14.0, "R1/2027": 13.5, "R2/2027": 13.0},
        selic_by_year={"2026": 14.0, "2027": 12.25},
    )
    projection = projection_of(snapshot)
    # R7/2026 (4 Nov) is already held: SGS's current target is the fact. R1/2027 and R2/2027 are not
    # in the calendar yet: each sits 52 weeks after the same meeting of 2026 (28 Jan, 18 Mar), flagged.
    assert list(projection.selic_by_meeting.items())[:3] == [
        (date(2026, 12, 9), 0.14),
        (date(2027, 1, 27), 0.135),
        (date(2027, 3, 17), 0.13),
    ]
    assert len(projection.selic_by_meeting) == 9  # R8/2026 and the eight of 2027
    assert projection.meeting_names[date(2027, 1, 27)] == ("R1/2027", True, "focus-meeting")
    assert projection.meeting_names[date(2026, 12, 9)] == ("R8/2026", False, "focus-meeting")
    assert projection.cdi_gap == pytest.approx(0.0011) and projection.as_of == TODAY
    assert projection.cdi_on(TODAY) == pytest.approx(0.1425 - 0.0011)
    assert projection.cdi_on(date(2027, 1, 28)) == pytest.approx(0.135 - 0.0011)
    # Once the refresh has read BCB's calendar, its date replaces the estimate.
    snapshot.copom_calendar = {"R1/2027": "2027-01-20", "R2/2027": "2027-03-17"}
    published = projection_of(snapshot)
    assert published.meeting_names[date(2027, 1, 20)] == ("R1/2027", False, "focus-meeting")
    assert date(2027, 1, 27) not in published.selic_by_meeting
    assert published.cdi_on(date(2027, 1, 21)) == pytest.approx(0.135 - 0.0011)


def test_the_listed_path_names_each_meeting_and_flags_estimated_dates(db):
    snapshot = ProjectionSnapshot(
        date=TODAY,
        selic_current=14.25,
        cdi_gap=0.10,
        selic_by_meeting={"R8/2026": 14.0, "R1/2027": 13.5},
        selic_by_year={"2026": 14.0, "2027": 12.25},
    )
    path = projection_of(snapshot).path_from(TODAY)
    assert (path[0].start, path[0].meeting, path[0].cdi) == (TODAY, None, pytest.approx(0.1415))
    assert (path[1].start, path[1].meeting, path[1].estimated_date) == (date(2026, 12, 10), "R8/2026", False)
    assert (path[2].start, path[2].meeting, path[2].estimated_date) == (date(2027, 1, 28), "R1/2027", True)
    # The meetings Focus does not name keep R1/2027's 13.50%, flagged; R8/2027 takes the year-end median.
    assert [(step.meeting, step.median_source) for step in path[3:]] == [
        *((f"R{n}/2027", "kept") for n in range(2, 8)), ("R8/2027", "focus-year-end")
    ]  # fmt: skip
    assert {step.selic_target for step in path[3:-1]} == {0.135} and path[-1].selic_target == 0.1225
    assert [step.start for step in path] == sorted({step.start for step in path})


def test_the_copom_calendar_is_data_with_its_source_and_meetings_decide_on_wednesdays():
    assert "bcb.gov.br" in finance.COPOM_SOURCE
    assert len(finance.COPOM_MEETINGS) == 8
    assert all(day.weekday() == 2 for day in finance.COPOM_MEETINGS.values())
    assert finance.meeting_key("R8/2026") == (2026, 8) and finance.meeting_key("2026") is None
    assert finance.meeting_date("R8/2026") == date(2026, 12, 9) and finance.meeting_date("R1/2031") is None
    estimated = finance.dated_meeting("R3/2027", finance.COPOM_MEETINGS)
    assert estimated == finance.DatedMeeting("R3/2027", date(2027, 4, 28), True)
    assert finance.dated_meeting("R3/2035", finance.COPOM_MEETINGS) is None  # too far from any date


# Slow (tests/tiers.py): a child Python imports the package.
@pytest.mark.slow
def test_the_finance_package_imports_without_django():
    import subprocess
    import sys

    code = "import sys, bonds.finance; print(sorted(m for m in sys.modules if m.split('.')[0] == 'django'))"
    output = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert output.strip() == "[]"
