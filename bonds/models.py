"""Bond offers, their issuers, the projections their returns are computed from, and refresh runs."""

from __future__ import annotations

from django.conf import settings
from django.core.files.storage import FileSystemStorage
from django.db import models
from django.utils import timezone


class Product(models.TextChoices):
    CDB = "cdb", "CDB (bank deposit certificate)"
    LCI = "lci", "LCI (real-estate credit note)"
    LCA = "lca", "LCA (agribusiness credit note)"
    CRI = "cri", "CRI (real-estate receivables certificate)"
    CRA = "cra", "CRA (agribusiness receivables certificate)"
    DEB = "deb", "Debenture"
    TPF = "tpf", "Federal public bond (TPF)"
    TD = "td", "Tesouro Direto"
    LF = "lf", "LF (financial bill)"
    MISC = "misc", "Other"


class Index(models.TextChoices):
    CDI_PERCENT = "cdi*", "% of CDI"
    CDI_PLUS = "cdi+", "CDI + spread"
    IPCA_PERCENT = "ipca*", "% of IPCA"
    IPCA_PLUS = "ipca+", "IPCA + spread"
    SELIC_PERCENT = "selic*", "% of Selic"
    SELIC_PLUS = "selic+", "Selic + spread"
    PRE = "pre", "Fixed rate"


class Issuer(models.Model):
    """A bank, broker or the Treasury, by its numeric code, with its credit rating."""

    class Scale(models.TextChoices):
        NATIONAL = "national", "National (Brazil)"
        GLOBAL = "global", "Global"

    code = models.PositiveIntegerField(unique=True, help_text="Numeric bank/broker code (COMPE).")
    name = models.CharField(max_length=200)
    rating = models.CharField(
        max_length=20,
        null=True,
        blank=True,
        help_text="Issuer rating, e.g. brAA+, AA(bra), BB-; '-' when omitted for the bank; empty if unknown.",
    )
    rating_scale = models.CharField(max_length=10, choices=Scale.choices, default=Scale.NATIONAL)
    rating_agency = models.CharField(max_length=50, blank=True)
    sovereign = models.BooleanField(
        default=False, help_text="The Treasury: the domestic risk-free issuer (payment probability 1)."
    )
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return f"{self.name} ({self.code})"


class Bond(models.Model):
    """One active (or formerly active) offer. Field names and enums are those of the bond list API."""

    source = models.CharField(max_length=60, help_text="Provider: tesouro, feed:<id>, demo.")
    natural_key = models.CharField(max_length=255, help_text="The offer's identity within its source.")
    issuer = models.ForeignKey(Issuer, null=True, blank=True, on_delete=models.SET_NULL, related_name="bonds")

    name = models.CharField(max_length=200)
    bank = models.PositiveIntegerField()
    bank_name = models.CharField(max_length=200)
    product = models.CharField(max_length=4, choices=Product.choices)
    index = models.CharField(max_length=6, choices=Index.choices)
    rate = models.FloatField(help_text="Factor or spread as a decimal: 1.05 with cdi* is 105% of CDI.")
    fgc_protection = models.BooleanField(default=False)
    tax_free = models.BooleanField(default=False)
    exclusive = models.BooleanField(default=False)
    min_investment = models.FloatField(default=0)
    maturity_date = models.DateField()
    early_withdrawal = models.BooleanField(default=False)
    liquidity_days = models.PositiveIntegerField(
        null=True,
        blank=True,
        help_text="D+N: business days from a redemption order to the money; empty if unknown.",
    )
    grace_period_days = models.PositiveIntegerField(
        null=True,
        blank=True,
        help_text="Days after the application before a redemption is allowed; empty if unknown.",
    )
    liquidity_kind = models.CharField(
        max_length=10,
        choices=[("redemption", "Redemption at the contract rate"), ("sale", "Sale at the market price")],
        null=True,
        blank=True,
        help_text="How the money comes back before maturity; empty when it does not.",
    )
    coupon_months = models.PositiveSmallIntegerField(
        null=True,
        blank=True,
        help_text="Interest paid every N months (1, 3, 6, 12) as the source says; empty: at maturity, or a "
        "coupon known from the name (Tesouro com Juros Semestrais, NTN-B, NTN-F).",
    )
    rating = models.CharField(max_length=20, null=True, blank=True)
    payment_probability = models.FloatField(null=True, blank=True)
    covered_payment_probability = models.FloatField(
        null=True,
        blank=True,
        help_text="Probability of being paid for an amount within the FGC limit (the issuer's elsewhere).",
    )
    fgc_covered_share = models.FloatField(
        null=True,
        blank=True,
        help_text="Share (0-1) of what is owed at maturity, for the minimum investment, that the FGC's BRL "
        "250,000 covers; empty where there is no FGC.",
    )
    payment_schedule = models.CharField(
        max_length=12,
        blank=True,
        default="",
        help_text="How it pays: bullet, semiannual, monthly, quarterly, annual, instalments, or unknown (the "
        "source says nothing: computed as a bullet).",
    )
    first_payment_date = models.DateField(
        null=True,
        blank=True,
        help_text="The first payment after settlement (a coupon, an instalment, or the maturity's payment).",
    )
    net_annualized_return = models.FloatField(null=True, blank=True)
    real_annualized_return = models.FloatField(null=True, blank=True)
    net_return_cdi_percent = models.FloatField(
        null=True,
        blank=True,
        help_text="Share of the projected CDI a taxed CDB must pay to net the same (1.1 = 110%).",
    )

    is_active = models.BooleanField(default=True)
    first_seen_at = models.DateTimeField(default=timezone.now)
    last_seen_at = models.DateTimeField(default=timezone.now)
    returns_computed_on = models.DateField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["source", "natural_key"], name="bond_unique_natural_key"),
        ]
        indexes = [models.Index(fields=["is_active", "product", "index"], name="bond_active_product_index")]

    def __str__(self) -> str:
        return f"{self.name} · {self.bank_name}"


class ProjectionSnapshot(models.Model):
    """The day's projections: Focus medians per Copom meeting and per year, and current rates from
    SGS (in %)."""

    date = models.DateField(unique=True)
    selic_by_meeting = models.JSONField(
        default=dict,
        blank=True,
        help_text='Focus Selic target median per Copom meeting: {"R8/2026": 14.25, ...}, %.',
    )
    meetings_focus_date = models.DateField(
        null=True, blank=True, help_text="Survey date (Data) of the per-meeting medians."
    )
    selic_by_year = models.JSONField(default=dict, blank=True, help_text='{"2027": 12.25, ...} in % a year.')
    ipca_by_year = models.JSONField(default=dict, blank=True, help_text='{"2027": 4.0, ...} in % a year.')
    focus_date = models.DateField(null=True, blank=True, help_text="Survey date (Data) of the Focus medians.")
    selic_current = models.FloatField(null=True, blank=True, help_text="Selic target now (SGS 432), %.")
    cdi_current = models.FloatField(null=True, blank=True, help_text="CDI annualized (SGS 4389), %.")
    ipca_12m = models.FloatField(null=True, blank=True, help_text="IPCA over 12 months (SGS 13522), %.")
    cdi_gap = models.FloatField(
        null=True, blank=True, help_text="Selic target - CDI on the latest day SGS has both (432, 4389), pp."
    )
    tr_monthly = models.FloatField(
        null=True, blank=True, help_text="TR (SGS 226) in force, % a month (poupança benchmark)."
    )
    tr_date = models.DateField(
        null=True, blank=True, help_text="The day the TR in force starts (its SGS 226 `data`)."
    )
    copom_calendar = models.JSONField(
        default=dict,
        blank=True,
        help_text='Copom decision days read from BCB\'s calendar: {"R1/2027": "2027-01-27", ...}.',
    )
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-date"]

    def __str__(self) -> str:
        return f"Projections of {self.date}"


class RefreshRun(models.Model):
    class Status(models.TextChoices):
        RUNNING = "running", "Running"
        OK = "ok", "Every provider succeeded"
        PARTIAL = "partial", "Some providers failed"
        FAILED = "failed", "Every provider failed"

    started_at = models.DateTimeField(default=timezone.now)
    finished_at = models.DateTimeField(null=True, blank=True)
    trigger = models.CharField(max_length=20, default="command", help_text="command, beat or admin.")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.RUNNING)
    outcomes = models.JSONField(
        default=dict, blank=True, help_text="Per provider: ok, counts, error, seconds."
    )
    created = models.PositiveIntegerField(default=0)
    updated = models.PositiveIntegerField(default=0)
    deactivated = models.PositiveIntegerField(default=0)
    recomputed = models.PositiveIntegerField(default=0)
    errors = models.TextField(blank=True)

    class Meta:
        ordering = ["-started_at"]

    def __str__(self) -> str:
        return f"Refresh {self.started_at:%Y-%m-%d %H:%M} ({self.status})"

    @property
    def failed_sources(self) -> list[str]:
        """The providers that failed in this run (`focus`, `sgs`, `tesouro`, `feed:<name>`…), sorted."""
        return sorted(name for name, outcome in self.outcomes.items() if not outcome.get("ok"))

    @property
    def summary(self) -> str:
        """One line: the status, providers ok, what changed, and which sources failed."""
        ok = len(self.outcomes) - len(self.failed_sources)
        line = (
            f"Refresh #{self.pk} {self.status}: {ok}/{len(self.outcomes)} provider(s) ok; "
            f"{self.created} created, {self.updated} updated, {self.deactivated} deactivated, "
            f"{self.recomputed} with new returns."
        )
        return f"{line} Failed: {', '.join(self.failed_sources)}." if self.failed_sources else line


def feed_storage() -> FileSystemStorage:
    return FileSystemStorage(location=settings.VAR_DIR / "bond_feeds")


class BrokerFeed(models.Model):
    """A broker's offers in Ponte's own CSV or JSON schema (the output of GET /bonds/api/), read
    from a URL or an uploaded file on every refresh."""

    class Format(models.TextChoices):
        AUTO = "auto", "Detect (JSON or CSV, comma or pt-BR semicolon)"
        JSON = "json", "JSON (BondList or a list of bonds)"
        CSV = "csv", "CSV (header row, seed column names)"

    name = models.SlugField(max_length=60, unique=True)
    url = models.URLField(max_length=500, blank=True, help_text="Fetched on every refresh.")
    file = models.FileField(storage=feed_storage, upload_to="uploads/", blank=True)
    format = models.CharField(max_length=4, choices=Format.choices, default=Format.AUTO)
    is_active = models.BooleanField(default=True)
    last_fetched_at = models.DateTimeField(null=True, blank=True, editable=False)
    last_count = models.PositiveIntegerField(null=True, blank=True, editable=False)
    last_error = models.TextField(blank=True, editable=False)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    @property
    def source(self) -> str:
        return f"feed:{self.name}"

    def clean(self) -> None:
        from django.core.exceptions import ValidationError

        if not self.url and not self.file:
            raise ValidationError("Give the feed a URL or upload a file.")
