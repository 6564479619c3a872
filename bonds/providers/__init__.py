"""One adapter per outside source. Each fetches with a timeout and raises ProviderError with a clear,
human-readable reason; none of them writes to the database (bonds.offers and bonds.snapshots do)."""

from bonds.providers.base import CurrentRates, FocusMedians, FocusMeetings, Offer, ProviderError

__all__ = ["CurrentRates", "FocusMedians", "FocusMeetings", "Offer", "ProviderError"]
