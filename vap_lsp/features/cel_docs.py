"""Words about CEL declarations, shared by hover, completion and signature help.

Kept in one place so the three features describe a variable or function identically.
"""

from __future__ import annotations

from collections.abc import Iterable

from vap_lsp.cel import library as lib
from vap_lsp.cel import types as t
from vap_lsp.cel.environment import Environment, ExpressionKind
from vap_lsp.cel.library.decls import MacroDecl, Overload
from vap_lsp.cel.types import Type

ROOT_DOCS: dict[str, str] = {
    "object": "The object of the admission request (`null` for DELETE).",
    "oldObject": "The existing object before the request (`null` for CREATE).",
    "request": "Attributes of the admission request (`kubernetes.AdmissionRequest`).",
    "params": "The parameter resource the binding's `paramRef` selects (`null` when the binding has "
    "no `paramRef`; with `parameterNotFoundAction: Allow` and no param object the policy is not evaluated).",
    "namespaceObject": "The namespace the object is in (`null` for cluster-scoped resources and in "
    "matchConditions).",
    "authorizer": "Authorization checks for the principal (user or service account) of the request.",
    "authorizer.requestResource": "An authorization check preconfigured with the request's resource.",
    "variables": "The policy's `spec.variables`, evaluated lazily by name: `variables.<name>`.",
}

KIND_NAMES: dict[ExpressionKind, str] = {
    ExpressionKind.VALIDATION: "a validation expression (must return bool)",
    ExpressionKind.MESSAGE_EXPRESSION: "a messageExpression (must return string)",
    ExpressionKind.AUDIT_ANNOTATION: "an auditAnnotation valueExpression (string or null)",
    ExpressionKind.MATCH_CONDITION: "a matchCondition (must return bool; no `variables`)",
    ExpressionKind.VARIABLE: "a variable expression (sees only earlier variables)",
    ExpressionKind.MAP_APPLY_CONFIGURATION: "an applyConfiguration expression (returns an `Object{…}`)",
    ExpressionKind.MAP_JSON_PATCH: "a JSONPatch expression (returns `list(JSONPatch)`)",
}


def type_text(typ: Type | None) -> str:
    return "dyn" if typ is None else t.format_cel_type(typ)


def is_user_function(name: str) -> bool:
    """Functions one can type: not operators (`_+_`) nor internal ones (`@in`, `cel.@mapInsert`)."""
    return bool(name) and (name[0].isalpha()) and "@" not in name


def overloads_of(name: str, env: Environment) -> tuple[tuple[Overload, ...], bool]:
    """The overloads of `name` usable in `env`; else those of any version (and False)."""
    fn = env.find_function(name, nested_scope=True)
    if fn is not None:
        return fn.overloads, True
    patch = env.kind.info.patch_types
    return tuple(o for o in lib.all_overloads(patch_types=patch) if o.function == name), False


def since_text(overloads: Iterable[Overload]) -> str:
    """`Kubernetes 1.31` (the earliest overload), or a note that it is always there."""
    intro = [o.introduced for o in overloads]
    if not intro:
        return ""
    if any(v is None for v in intro):
        return "Available in every supported Kubernetes version."
    minors = sorted({lib.minor_of(v) for v in intro if v is not None})
    text = f"Introduced in Kubernetes 1.{minors[0]}"
    if len(minors) > 1:
        text += " (later overloads: " + ", ".join(f"1.{m}" for m in minors[1:]) + ")"
    return text + "."


def function_markdown(name: str, env: Environment, matched: Iterable[str] = ()) -> str | None:
    overloads, available = overloads_of(name, env)
    if not overloads:
        return None
    matched_ids = set(matched)
    lines = [o.signature() for o in overloads]
    docs: list[str] = []
    for o in overloads:
        if o.doc and o.doc not in docs and (not matched_ids or o.id in matched_ids):
            docs.append(o.doc)
    if not docs:
        docs = list(dict.fromkeys(o.doc for o in overloads if o.doc))
    libraries = ", ".join(dict.fromkeys(o.library for o in overloads))
    parts = [f"```cel\n{chr(10).join(lines)}\n```", "; ".join(docs[:3])]
    note = since_text(overloads) + f" Library: `{libraries}`."
    if not available:
        note += f" Not available in Kubernetes {env.kubernetes_version} here."
    parts.append(note)
    return "\n\n".join(p for p in parts if p)


def macro_markdown(macros: Iterable[MacroDecl], env: Environment) -> str | None:
    found = list(macros)
    if not found:
        return None
    sigs = "\n".join(macro_signature(m) for m in found)
    docs = "; ".join(dict.fromkeys(m.doc for m in found if m.doc))
    libraries = ", ".join(dict.fromkeys(m.library for m in found))
    intro = [m.introduced for m in found]
    if any(v is None for v in intro):
        since = "Available in every supported Kubernetes version."
    else:
        since = f"Introduced in Kubernetes {min(intro, key=lambda v: lib.minor_of(v or '1.0'))}."
    return f"```cel\n{sigs}\n```\n\nMacro: {docs}\n\n{since} Library: `{libraries}`."


def macros_named(name: str, env: Environment, receiver: bool | None = None) -> list[MacroDecl]:
    available = [
        m for m in env.macros if m.name == name and (receiver is None or m.receiver_style == receiver)
    ]
    if available:
        return available
    return [
        m for m in lib.all_macros() if m.name == name and (receiver is None or m.receiver_style == receiver)
    ]


# Argument names shown for macros (signature help, completion snippets), by (name, arity).
_MACRO_ARGS: dict[tuple[str, int], tuple[str, ...]] = {
    ("has", 1): ("x.field",),
    ("all", 2): ("x", "predicate"),
    ("exists", 2): ("x", "predicate"),
    ("exists_one", 2): ("x", "predicate"),
    ("filter", 2): ("x", "predicate"),
    ("map", 2): ("x", "expr"),
    ("map", 3): ("x", "predicate", "expr"),
    ("all", 3): ("i", "v", "predicate"),
    ("exists", 3): ("i", "v", "predicate"),
    ("exists_one", 3): ("i", "v", "predicate"),
    ("existsOne", 3): ("i", "v", "predicate"),
    ("transformList", 3): ("i", "v", "expr"),
    ("transformList", 4): ("i", "v", "predicate", "expr"),
    ("transformMap", 3): ("k", "v", "expr"),
    ("transformMap", 4): ("k", "v", "predicate", "expr"),
    ("transformMapEntry", 3): ("k", "v", "mapExpr"),
    ("transformMapEntry", 4): ("k", "v", "predicate", "mapExpr"),
    ("optMap", 2): ("v", "expr"),
    ("optFlatMap", 2): ("v", "optionalExpr"),
    ("sortBy", 2): ("x", "keyExpr"),
}


def macro_args(macro: MacroDecl) -> tuple[str, ...]:
    count = macro.arg_count if macro.arg_count is not None else 1
    return _MACRO_ARGS.get((macro.name, count), tuple(f"arg{i + 1}" for i in range(count)))


def macro_signature(macro: MacroDecl) -> str:
    head = "<list|map>." if macro.receiver_style else ""
    if macro.name in ("optMap", "optFlatMap"):
        head = "<optional>."
    elif macro.name == "sortBy":
        head = "<list>."
    return f"{head}{macro.name}({', '.join(macro_args(macro))})"
