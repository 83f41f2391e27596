import store


def test_add_then_read(conn):
    store.add_item(conn, "bolt", 4, "0.25")
    assert store.quantity(conn, "bolt") == 4
    assert store.quantity(conn, "nut") == 0
