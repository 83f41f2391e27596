import pytest
from api.notes import NotesApi

from client import ApiError, NotesClient


def test_create_then_get():
    client = NotesClient(NotesApi().handle)
    note = client.create_note("hello")
    assert client.get_note(note["id"])["text"] == "hello"


def test_errors_carry_the_code():
    with pytest.raises(ApiError) as err:
        NotesClient(NotesApi().handle).get_note(99)
    assert err.value.code == "not_found"


def test_list_small_collection():
    client = NotesClient(NotesApi(["a", "b", "c"]).handle)
    assert [note["text"] for note in client.list_notes()] == ["a", "b", "c"]
