"""BCB's Copom calendar (its "Reuniões do Copom" agenda as iCalendar, served here from 127.0.0.1):
read by the refresh, replacing estimated dates; a year not yet published warns from July."""

from __future__ import annotations

from datetime import date

import pytest

from bonds import finance
from bonds.checks import copom_calendar_warnings
from bonds.models import ProjectionSnapshot
from bonds.projections import projection_of
from bonds.providers import copom
from bonds.providers.base import FocusMeetings, ProviderError
from bonds.providers.copom import CopomCalendar
from bonds.snapshots import projection_snapshot_record
from tests.bonds.conftest import fixture_bytes


def test_the_agenda_gives_each_meetings_decision_day_named_as_focus_names_it(fake_source):
    url = fake_source.route("/agendaics", fixture_bytes("copom_agenda.ics"), content_type="text/calendar")
    calendar = copom.fetch(url=url, timeout=5)
    assert calendar.years == [2026, 2027]
    assert calendar.meetings["R8/2026"] == date(2026, 12, 9) == finance.COPOM_MEETINGS["R8/2026"]
    assert calendar.meetings["R1/2027"] == date(2027, 1, 20)  # the second of its two days
    assert all(day.weekday() == 2 for day in calendar.meetings.values())


def test_a_year_not_listed_whole_is_left_out_rather_than_misnumbered():
    text = fixture_bytes("copom_agenda.ics").decode()
    cut = text.replace("DTSTART:20271207T090000", "DTSTART:20271207").split("BEGIN:VEVENT")
    # Drop the last meeting's two days: 2027 has seven meetings left.
    partial = "BEGIN:VEVENT".join(cut[:-2]) + "END:VCALENDAR\r\n"
    assert copom.parse(partial.encode()).years == [2026]


def test_an_answer_that_is_not_an_icalendar_is_a_clear_error(fake_source):
    url = fake_source.route("/agendaics", "<html>manutenção</html>", content_type="text/html")
    with pytest.raises(ProviderError, match="not an iCalendar"):
        copom.fetch(url=url, timeout=5)


@pytest.mark.django_db
def test_the_published_date_replaces_the_estimate_and_a_failed_read_keeps_the_last_one():
    day = date(2026, 11, 23)
    meetings = FocusMeetings(survey_date=day, selic_by_meeting={"R8/2026": 14.0, "R1/2027": 13.5})
    snapshot, _ = projection_snapshot_record(day=day, focus_medians=None, current=None, meetings=meetings)
    assert projection_of(snapshot).meeting_names[date(2027, 1, 27)] == ("R1/2027", True, "focus-meeting")
    published = CopomCalendar(meetings=copom.parse(fixture_bytes("copom_agenda.ics")).meetings)
    snapshot, changed = projection_snapshot_record(
        day=day, focus_medians=None, current=None, meetings=meetings, calendar=published
    )
    assert changed and snapshot.copom_calendar["R1/2027"] == "2027-01-20"
    assert projection_of(snapshot).meeting_names[date(2027, 1, 20)] == ("R1/2027", False, "focus-meeting")
    # The next day the calendar cannot be read: the one read before stays.
    later, _ = projection_snapshot_record(day=date(2026, 11, 24), focus_medians=None, current=None)
    assert later.copom_calendar == snapshot.copom_calendar
    assert ProjectionSnapshot.objects.count() == 2


def test_check_warns_from_july_when_next_years_calendar_is_missing():
    assert copom_calendar_warnings(today=date(2026, 6, 30), published={}) == []
    [warning] = copom_calendar_warnings(today=date(2026, 7, 1), published={})
    assert warning.id == "bonds.W001" and "2027" in warning.msg
    assert copom_calendar_warnings(today=date(2026, 11, 26), published={"R1/2027": "2027-01-20"}) == []


def test_the_missing_calendar_hint_starts_with_what_works_offline():
    [warning] = copom_calendar_warnings(today=date(2026, 7, 1), published={})
    offline, online = warning.hint.split("Offline, ")[1].split("; online, ")
    assert "bonds/finance/copom_calendar.json" in offline and "refresh_bonds" in online
