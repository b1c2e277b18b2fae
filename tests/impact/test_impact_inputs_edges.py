"""Impact inputs at their edges (issue 39): snapshots as requests per operation, YAML streams
of Lists and of objects with anchors (read whole, and item by item as a file over
`inputs.WHOLE_FILE_BYTES` is), a file starting with comments or holding nothing else, merging
no result.

Kubernetes: `kubectl get -o yaml` writes a `List` (or `<Kind>List`) whose `items` are the
objects; a DELETE's admission request has no object and the stored one as oldObject
(`admission.Attributes`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from vap_lsp.admission.api import UserInfo
from vap_lsp.impact import inputs
from vap_lsp.impact.inputs import SnapshotError, iter_objects
from vap_lsp.impact.locations import Location
from vap_lsp.impact.report import MergeError, merge
from vap_lsp.impact.sources import snapshot_items

POD = "apiVersion: v1\nkind: Pod\nmetadata: {name: %s, namespace: prod}\nspec: {containers: []}\n"


@pytest.fixture(params=["whole", "streamed"])
def reader(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each file read whole (libyaml composes its documents) or streamed (libyaml's events,
    a List's items one at a time), the reader of files over WHOLE_FILE_BYTES."""
    if request.param == "streamed":
        monkeypatch.setattr(inputs, "WHOLE_FILE_BYTES", -1)
    return str(request.param)


def _objects(tmp_path: Path, text: str) -> list[dict[str, object]]:
    path = tmp_path / "snapshot.yaml"
    path.write_text(text)
    return [so.obj for so in iter_objects([Location(str(path))])]


@pytest.mark.parametrize(
    ("operation", "has_object", "has_old"),
    [("CREATE", True, False), ("UPDATE", True, True), ("DELETE", False, True)],
)
def test_a_snapshot_as_requests(tmp_path: Path, operation: str, has_object: bool, has_old: bool) -> None:
    path = tmp_path / "snapshot.yaml"
    path.write_text(POD % "a")
    (item,) = snapshot_items(iter_objects([Location(str(path))]), operation=operation, user=UserInfo("u"))
    request = item.request
    assert request.operation == operation
    assert (request.object is not None, request.old_object is not None) == (has_object, has_old)
    if has_object and has_old:
        assert request.old_object == request.object


@pytest.mark.parametrize(
    "text",
    [
        "apiVersion: v1\nkind: List\nitems:\n- " + POD.replace("\n", "\n  ").rstrip() + "\n",
        "apiVersion: v1\nkind: PodList\nitems:\n- " + POD.replace("\n", "\n  ").rstrip() + "\n",
        # no kind before `items`: still a List
        "items:\n- " + POD.replace("\n", "\n  ").rstrip() + "\nkind: List\n",
        # comments and blank lines first
        "# a snapshot\n\n" + POD,
    ],
    ids=["List", "PodList", "items-first", "comments-first"],
)
def test_lists_are_unwrapped(tmp_path: Path, text: str, reader: str) -> None:
    assert [o["metadata"]["name"] for o in _objects(tmp_path, text % "a")] == ["a"]  # type: ignore[index]


def test_an_object_with_items_that_is_not_a_list_stays_whole(tmp_path: Path, reader: str) -> None:
    text = "apiVersion: example.com/v1\nkind: Basket\nmetadata: {name: b}\nitems: [1, 2]\n"
    (obj,) = _objects(tmp_path, text)
    assert obj["kind"] == "Basket" and obj["items"] == [1, 2]


def test_anchors_do_not_leak_between_documents(tmp_path: Path, reader: str) -> None:
    text = (
        "apiVersion: v1\nkind: Pod\nmetadata: &m {name: a, namespace: prod}\nspec: {containers: []}\n---\n"
        "apiVersion: v1\nkind: Pod\nmetadata: {name: b, namespace: prod}\nspec: {containers: []}\n"
    )
    assert [o["metadata"]["name"] for o in _objects(tmp_path, text)] == ["a", "b"]  # type: ignore[index]


def test_anchors_after_a_document_that_is_not_a_mapping(tmp_path: Path, reader: str) -> None:
    """A scalar or a sequence document is no object (skipped); the anchors of the documents
    after it are read as anchors, and none carries over from it."""
    text = "just a note\n---\n- &x {name: z}\n---\n" + POD.replace("{name: %s,", "&m {name: %s,")
    assert [o["metadata"]["name"] for o in _objects(tmp_path, text % "a")] == ["a"]  # type: ignore[index]
    alias = "- &x {name: z}\n---\napiVersion: v1\nkind: Pod\nmetadata: *x\n"
    with pytest.raises(SnapshotError, match=r"snapshot\.yaml: found undefined alias"):
        _objects(tmp_path, alias)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "\n\n",
        "# nothing here yet\n",
        # a manifest commented out, line by line: still nothing
        '#{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "old"}}\n',
        "#apiVersion: v1\n#kind: Namespace\n#metadata: {name: old}\n",
    ],
    ids=["empty", "blank", "comment", "commented-json", "commented-yaml"],
)
def test_a_file_of_comments_holds_no_object(tmp_path: Path, text: str, reader: str) -> None:
    assert _objects(tmp_path, text) == []


def test_merging_nothing_is_an_error() -> None:
    with pytest.raises(MergeError) as info:
        merge([])
    assert str(info.value) == "no result to merge"
