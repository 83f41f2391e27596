from decimal import Decimal

import pricing
import store


def test_value_in_dollars(conn):
    store.add_item(conn, "bolt", 4, "0.25")
    store.add_item(conn, "nut", 10, "0.10")
    assert pricing.stock_value(conn) == Decimal("2.00")
