"""The value of the stock, in any currency the rates service knows."""

import json
import os
import urllib.request
from decimal import Decimal

import store

DEFAULT_RATES_URL = "http://rates:8080"


def rate(base, quote):
    """The exchange rate from ``base`` to ``quote`` (1 for the same currency)."""
    if base == quote:
        return Decimal(1)
    url = os.environ.get("RATES_URL", DEFAULT_RATES_URL)
    with urllib.request.urlopen(f"{url}/rate/{base}/{quote}", timeout=5) as resp:
        return Decimal(str(json.load(resp)["rate"]))


def stock_value(conn, currency="USD"):
    """The value of every item in stock, in ``currency`` (prices are in USD)."""
    total = sum(
        (Decimal(q) * Decimal(p) for _, q, p in store.items(conn)), Decimal(0)
    )
    return total.quantize(Decimal("0.01"))
