from api.notes import NotesApi


def test_create_and_get():
    api = NotesApi()
    status, note = api.handle("POST", "/notes", body={"text": "hello"})
    assert status == 201
    assert api.handle("GET", f"/notes/{note['id']}") == (200, {"id": note["id"], "text": "hello"})


def test_missing_note_is_not_found():
    status, body = NotesApi().handle("GET", "/notes/7")
    assert status == 404
    assert body["error"]["code"] == "not_found"


def test_invalid_body_is_rejected():
    status, body = NotesApi().handle("POST", "/notes", body={"text": 3})
    assert (status, body["error"]["code"]) == (400, "invalid_parameter")


def test_small_list_is_one_page():
    status, body = NotesApi(["a", "b"]).handle("GET", "/notes")
    assert status == 200
    assert [note["text"] for note in body["items"]] == ["a", "b"]
