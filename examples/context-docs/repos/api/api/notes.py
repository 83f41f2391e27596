"""Request handling of the notes API."""

import re

_NOTE_PATH = re.compile(r"^/notes/(\d+)$")


def error(status, code, message):
    """An error answer, shaped as the API guidelines require."""
    return status, {"error": {"code": code, "message": message}}


class NotesApi:
    """An in-memory notes service."""

    def __init__(self, notes=()):
        self.notes = {}
        for text in notes:
            self.create(text)

    def create(self, text):
        note = {"id": len(self.notes) + 1, "text": text}
        self.notes[note["id"]] = note
        return note

    def handle(self, method, path, query=None, body=None):
        """Answer one request with ``(status, json_body)``."""
        query = query or {}
        if path == "/notes" and method == "GET":
            return self.list_notes(query)
        if path == "/notes" and method == "POST":
            if not isinstance(body, dict) or not isinstance(body.get("text"), str):
                return error(400, "invalid_parameter", "body must be {\"text\": string}")
            return 201, self.create(body["text"])
        match = _NOTE_PATH.match(path)
        if match and method == "GET":
            note = self.notes.get(int(match.group(1)))
            if note is None:
                return error(404, "not_found", f"note {match.group(1)} does not exist")
            return 200, note
        return error(404, "not_found", f"no route for {method} {path}")

    def list_notes(self, query):
        return 200, {"items": [self.notes[i] for i in sorted(self.notes)]}
