"""A tiny stock ledger kept in PostgreSQL."""

import os

import psycopg2

DEFAULT_DSN = "host=db port=5432 user=app dbname=postgres connect_timeout=5"


def connect(dsn=None):
    """Open a connection to the ledger's database (``STORE_DSN`` or the default)."""
    conn = psycopg2.connect(dsn or os.environ.get("STORE_DSN", DEFAULT_DSN))
    conn.autocommit = True
    return conn


def create_schema(conn):
    """Create the ledger's table; fails if it exists (a ledger starts empty)."""
    with conn.cursor() as cur:
        cur.execute(
            "CREATE TABLE items ("
            " sku text PRIMARY KEY,"
            " quantity integer NOT NULL CHECK (quantity >= 0),"
            " unit_price numeric(12, 2) NOT NULL)"
        )


def add_item(conn, sku, quantity, unit_price):
    """Record ``quantity`` units of ``sku`` at ``unit_price`` each."""
    with conn.cursor() as cur:
        cur.execute(
            "INSERT INTO items (sku, quantity, unit_price) VALUES (%s, %s, %s)",
            (sku, quantity, unit_price),
        )


def quantity(conn, sku):
    """Units of ``sku`` in stock (0 when unknown)."""
    with conn.cursor() as cur:
        cur.execute("SELECT quantity FROM items WHERE sku = %s", (sku,))
        row = cur.fetchone()
    return row[0] if row else 0


def items(conn):
    """Every (sku, quantity, unit_price), by sku."""
    with conn.cursor() as cur:
        cur.execute("SELECT sku, quantity, unit_price FROM items ORDER BY sku")
        return cur.fetchall()
