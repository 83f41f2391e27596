import pytest

import store


@pytest.fixture
def conn():
    c = store.connect()
    with c.cursor() as cur:
        cur.execute("DROP TABLE IF EXISTS items")
    store.create_schema(c)
    yield c
    c.close()
