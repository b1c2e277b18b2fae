"""Project configuration: `.vap-lsp.yaml` or `[tool.vap-lsp]` in `pyproject.toml`.

Found as ruff finds its own: the nearest file from each checked file's folder upward (in one
folder `.vap-lsp.yaml` wins over `.vap-lsp.yml` over `pyproject.toml`, and a `pyproject.toml`
without `[tool.vap-lsp]` does not count). Paths and globs in it are relative to its folder.
Command-line flags (CLI) and client settings (server) override it: `Overrides`.

Keys: `kubernetes-version`, `crds` (files or folders of CRDs), `samples` (globs for "Run
against samples"), `exclude` (globs), `ignore` (codes), `severity` (code → error, warning,
information, hint or off), `per-file-ignores` (glob → codes), `min-severity` (the lowest level
the command line's report shows for the files under it; the editor shows everything),
`static-manifests` (folders kube-apiserver loads at start-up: each a path, or `{path, plugin}`
with `plugin` validating or mutating; `vap_lsp.static_manifests` checks them).

This module reads files; turning the result into `AnalysisSettings` is all the adapters do
with it. The filtering itself is `vap_lsp.analysis.suppress`, applied by the engine.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError

from vap_lsp.analysis.diagnostics import Severity
from vap_lsp.analysis.files import CONFIG_FILE_NAMES, read_text
from vap_lsp.analysis.model.helm import chart_of
from vap_lsp.analysis.model.kustomize import patch_file
from vap_lsp.analysis.settings import AnalysisSettings
from vap_lsp.analysis.suppress import UNSUPPRESSIBLE, CodeRules
from vap_lsp.schema.store import normalize_version
from vap_lsp.suggest import did_you_mean

if TYPE_CHECKING:
    from vap_lsp.analysis.model.crds import LoadedCRDs

CONFIG_FILES = (*CONFIG_FILE_NAMES, "pyproject.toml")

_SEVERITY_NAMES = {
    "error": Severity.ERROR,
    "warning": Severity.WARNING,
    "information": Severity.INFORMATION,
    "info": Severity.INFORMATION,
    "hint": Severity.HINT,
}
_OFF = ("off", "ignore", "none")

KEYS = (
    "kubernetes-version",
    "crds",
    "samples",
    "exclude",
    "ignore",
    "severity",
    "per-file-ignores",
    "min-severity",
    "static-manifests",
)
LEVELS = ("error", "warning", "information", "hint")  # `--min-severity`, `min-severity`
PLUGINS = ("validating", "mutating")


@dataclass(frozen=True)
class Config:
    """One configuration file, parsed and validated (or the empty configuration)."""

    path: Path | None = None
    # The folder globs and relative paths are resolved against.
    root: Path = field(default_factory=Path.cwd)
    kubernetes_version: str | None = None
    crds: tuple[Path, ...] = ()  # absolute
    samples: tuple[str, ...] = ()  # absolute globs
    exclude: tuple[str, ...] = ()
    ignore: frozenset[str] = frozenset()
    severity: tuple[tuple[str, Severity], ...] = ()
    per_file_ignores: tuple[tuple[str, frozenset[str]], ...] = ()
    min_severity: Severity | None = None  # the CLI report's filter (`check`); None: the format's own
    # Static manifests folders (absolute) and the plugin that loads each (None: said by its kinds).
    static_manifests: tuple[tuple[Path, str | None], ...] = ()
    # Problems that make the file wrong (the CLI exits 2), and mere warnings (unknown codes).
    errors: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()

    def static_folder(self, path: Path) -> tuple[Path, str | None] | None:
        """The configured static manifests folder `path` (a file) is directly in, with its plugin."""
        parent = path.absolute().parent.resolve()
        return next(((f, plugin) for f, plugin in self.static_manifests if f == parent), None)

    def is_excluded(self, path: Path) -> bool:
        return any(glob_matches(pattern, self._relative(path)) for pattern in self.exclude)

    def code_rules(self, path: Path | None, overrides: Overrides | None = None) -> CodeRules:
        ignore = set(self.ignore)
        if path is not None:
            relative = self._relative(path)
            for pattern, codes in self.per_file_ignores:
                if glob_matches(pattern, relative):
                    ignore |= codes
        severity = dict(self.severity)
        if overrides is not None:
            ignore |= overrides.ignore | overrides.off
            for code, level in overrides.severity:
                severity[code] = level
                ignore.discard(code)  # a severity given on the command line shows an ignored code again
        # (Codes that cannot be hidden or re-graded are guarded where rules apply: `suppress`.)
        return CodeRules(frozenset(ignore), tuple(sorted(severity.items())))

    def analysis_settings(self, path: Path | None, overrides: Overrides | None = None) -> AnalysisSettings:
        version = (overrides.kubernetes_version if overrides else None) or self.kubernetes_version
        return AnalysisSettings(
            kubernetes_version=version,
            rules=self.code_rules(path, overrides),
            patch=patch_file(path) if path is not None else None,
            chart=chart_of(path) if path is not None else None,
        )

    def _relative(self, path: Path) -> str:
        absolute = path if path.is_absolute() else Path.cwd() / path
        try:
            return absolute.relative_to(self.root).as_posix()
        except ValueError:
            return absolute.as_posix()


@dataclass(frozen=True)
class Overrides:
    """What the command line or the client settings say, winning over the file."""

    kubernetes_version: str | None = None
    ignore: frozenset[str] = frozenset()
    severity: tuple[tuple[str, Severity], ...] = ()
    off: frozenset[str] = frozenset()  # `--severity code=off`


_LEVELS_TEXT = "error, warning, information, hint or off"


def _level(value: object) -> Severity | str | None:
    """A level as written in `severity` settings: a Severity, "off", or None (not a level)."""
    name = str(value).strip().lower()
    return "off" if name in _OFF else _SEVERITY_NAMES.get(name)


def severity_level(name: str) -> Severity | None:
    """`error`, `warning`, `information` (`info`) or `hint` as a Severity; None for anything else."""
    return _SEVERITY_NAMES.get(name.strip().lower())


def _severity_overrides(
    pairs: Iterable[tuple[str, object]], problem: Callable[[str, object], str]
) -> tuple[Overrides, list[str]]:
    """(code, level) pairs → overrides; `problem(code, level)` words a level that is none."""
    severity: dict[str, Severity] = {}
    off: set[str] = set()
    problems: list[str] = []
    for code, written in pairs:
        level = _level(written)
        if level == "off":
            off.add(code)
        elif isinstance(level, Severity):
            severity[code] = level
        else:
            problems.append(problem(code, written))
    return Overrides(severity=tuple(sorted(severity.items())), off=frozenset(off)), problems


def parse_severity_overrides(items: Iterable[str]) -> tuple[Overrides, list[str]]:
    """`CODE=LEVEL` items (the CLI's `--severity`) → overrides and problems."""
    pairs: list[tuple[str, object]] = []
    malformed: list[str] = []
    for item in items:
        code, sep, level = item.partition("=")
        if not sep or not code.strip():
            malformed.append(f"--severity {item!r}: expected CODE=LEVEL")
        else:
            pairs.append((code.strip(), level))
    overrides, problems = _severity_overrides(
        pairs, lambda code, level: f"--severity {f'{code}={level}'!r}: level must be {_LEVELS_TEXT}"
    )
    return overrides, malformed + problems


def glob_matches(pattern: str, relative: str) -> bool:
    """gitignore-like: a pattern without `/` matches a name at any depth, `**` any folders, and
    a pattern that matches a folder matches everything below it."""
    return _glob_regex(pattern).match(relative) is not None


_GLOB_CACHE: dict[str, re.Pattern[str]] = {}


def _glob_regex(pattern: str) -> re.Pattern[str]:
    cached = _GLOB_CACHE.get(pattern)
    if cached is not None:
        return cached
    p = pattern.strip().removeprefix("./").rstrip("/")
    if "/" not in p:
        p = "**/" + p
    out, i = [], 0
    while i < len(p):
        if p.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif p.startswith("**", i):
            out.append(".*")
            i += 2
        elif p[i] == "*":
            out.append("[^/]*")
            i += 1
        elif p[i] == "?":
            out.append("[^/]")
            i += 1
        elif p[i] == "[" and "]" in p[i + 2 :]:
            end = p.index("]", i + 2)
            body = p[i + 1 : end].replace("\\", "\\\\")
            out.append("[" + ("^" + body[1:] if body.startswith("!") else body) + "]")
            i = end + 1
        else:
            out.append(re.escape(p[i]))
            i += 1
    compiled = re.compile("^" + "".join(out) + "(?:/.*)?$")
    _GLOB_CACHE[pattern] = compiled
    return compiled


def find_config_file(start: Path) -> Path | None:
    """The nearest configuration file from `start` (a file or folder) upward."""
    folder = start if start.is_dir() else start.parent
    folder = folder.absolute()
    for candidate in (folder, *folder.parents):
        for name in CONFIG_FILES:
            path = candidate / name
            if path.is_file() and (name != "pyproject.toml" or _has_tool_section(path)):
                return path
    return None


def project_root(path: Path) -> Path | None:
    """The project a file belongs to when nobody says which (the language server given a file
    but no workspace folder): the enclosing git repository (a `.git` folder, or a worktree's
    `.git` file), else the nearest folder with a configuration file or a `pyproject.toml`, as
    `check .` there would see it. Never the home folder or the filesystem root: a dotfiles
    repository would make the whole home one project."""
    folder = (path if path.is_dir() else path.parent).absolute()
    try:
        home: Path | None = Path.home().absolute()
    except RuntimeError:  # no HOME and no passwd entry
        home = None
    candidates: list[Path] = []
    for f in (folder, *folder.parents):
        if f == home or f == Path(f.anchor):
            break
        candidates.append(f)
    repository = next((f for f in candidates if (f / ".git").exists()), None)
    if repository is not None:
        return repository
    return next((f for f in candidates if any((f / name).is_file() for name in CONFIG_FILES)), None)


# pyproject.toml → ((mtime_ns, size), has [tool.vap-lsp]): the server looks the configuration
# up on every analysis and hover, and re-parsing the TOML each time cost ~2 ms.
_TOOL_SECTION: dict[Path, tuple[tuple[int, int], bool]] = {}


def _has_tool_section(path: Path) -> bool:
    try:
        stat = path.stat()
    except OSError:
        return False
    stamp = (stat.st_mtime_ns, stat.st_size)
    cached = _TOOL_SECTION.get(path)
    if cached is not None and cached[0] == stamp:
        return cached[1]
    text = read_text(path, [])
    if text is None:
        return False
    # A `[tool.vap-lsp]` that TOML cannot read still counts: its error is reported, not skipped.
    found = _TOOL_TABLE.search(text) is not None
    _TOOL_SECTION[path] = (stamp, found)
    return found


_TOOL_TABLE = re.compile(r"^\s*\[+\s*tool\s*\.\s*[\"']?vap-lsp", re.MULTILINE)
_TOML_WHERE = re.compile(r"^(.*) \(at line (\d+), column (\d+)\)$", re.DOTALL)


def _toml_section(path: Path, errors: list[str]) -> Any:
    """The `[tool.vap-lsp]` table (None without one); in a TOML file given to `--config` that is
    not a pyproject.toml, its top-level table when it has no `[tool.vap-lsp]`."""
    import tomllib  # only when a pyproject.toml mentions vap-lsp: its regexes cost ~10 ms to import

    text = read_text(path, errors)
    if text is None:
        return None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        where = _TOML_WHERE.match(str(exc))
        if where is not None:
            errors.append(f"{path}:{where.group(2)}:{where.group(3)}: TOML syntax error: {where.group(1)}")
        else:
            errors.append(f"{path}: TOML syntax error: {exc}")
        return None
    tool = data.get("tool")
    section = tool.get("vap-lsp") if isinstance(tool, dict) else None
    if section is None and path.name != "pyproject.toml":
        return data
    return section


def _yaml_error(path: Path, exc: YAMLError) -> str:
    """A configuration file's YAML error as `path:line:col: ...` (not ruamel's multi-line text)."""
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    problem = getattr(exc, "problem", None) or str(exc)
    if mark is None:
        return f"{path}: YAML syntax error: {problem}"
    return f"{path}:{mark.line + 1}:{mark.column + 1}: YAML syntax error: {problem}"


def load_config(path: Path) -> Config:
    """Parse and validate one configuration file; problems are collected, never raised."""
    path = path.absolute()
    root = path.parent
    if path.suffix == ".toml":
        errors: list[str] = []
        section = _toml_section(path, errors)
        if errors:
            return Config(path, root, errors=tuple(errors))
        raw = {} if section is None else section
        where = f"{path}: [tool.vap-lsp]"
    else:
        errors = []
        text = read_text(path, errors)
        if text is None:
            return Config(path, root, errors=tuple(errors))
        try:
            raw = YAML(typ="safe", pure=True).load(text)
        except YAMLError as exc:
            return Config(path, root, errors=(_yaml_error(path, exc),))
        raw = {} if raw is None else raw
        where = str(path)
    if not isinstance(raw, dict):
        return Config(path, root, errors=(f"{where}: expected a mapping of settings",))
    return _from_mapping(raw, path, root, where)


def _from_mapping(raw: Mapping[str, Any], path: Path | None, root: Path, where: str) -> Config:
    errors: list[str] = []
    warnings: list[str] = []

    def strings(key: str) -> tuple[str, ...]:
        value = raw.get(key)
        if value is None:
            return ()
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            errors.append(f"{where}: {key}: expected a list of strings")
            return ()
        return tuple(value)

    for key in raw:
        if key not in KEYS:
            errors.append(f"{where}: unknown key {key!r}" + did_you_mean(str(key), KEYS))

    version: str | None = None
    raw_version = raw.get("kubernetes-version")
    if isinstance(raw_version, float) and len(repr(raw_version).partition(".")[2]) < 2:
        # YAML and TOML read `1.30` as the number 1.3: the version the user wrote is lost.
        errors.append(
            f"{where}: kubernetes-version: {raw_version!r} is a number ({raw_version:.2f} is read as "
            f'{raw_version!r}): quote it, e.g. kubernetes-version: "{raw_version:.2f}"'
        )
    elif raw_version is not None:
        try:
            version = normalize_version(str(raw_version))
        except ValueError as exc:
            errors.append(f"{where}: kubernetes-version: {exc}")

    ignore = set(strings("ignore"))
    severity: dict[str, Severity] = {}
    raw_severity = raw.get("severity")
    if raw_severity is not None:
        if not isinstance(raw_severity, dict):
            errors.append(f"{where}: severity: expected a mapping of code to level")
        else:
            parsed, bad = _severity_overrides(
                ((str(code), level) for code, level in raw_severity.items()),
                lambda code, level: f"{where}: severity: {code}: {level!r} is not {_LEVELS_TEXT}",
            )
            ignore |= parsed.off
            severity.update(parsed.severity)
            errors.extend(bad)

    per_file: list[tuple[str, frozenset[str]]] = []
    raw_per_file = raw.get("per-file-ignores")
    if raw_per_file is not None:
        if not isinstance(raw_per_file, dict):
            errors.append(f"{where}: per-file-ignores: expected a mapping of glob to codes")
        else:
            for pattern, codes in raw_per_file.items():
                listed = [codes] if isinstance(codes, str) else codes
                if not isinstance(listed, list) or not all(isinstance(c, str) for c in listed):
                    errors.append(f"{where}: per-file-ignores: {pattern}: expected a list of codes")
                    continue
                per_file.append((str(pattern), frozenset(listed)))

    min_severity: Severity | None = None
    raw_min = raw.get("min-severity")
    if raw_min is not None:
        min_severity = severity_level(raw_min) if isinstance(raw_min, str) else None
        if min_severity is None:
            errors.append(
                f"{where}: min-severity: {raw_min!r} is not {', '.join(LEVELS[:-1])} or {LEVELS[-1]}"
            )
    static: list[tuple[Path, str | None]] = []
    raw_static = raw.get("static-manifests")
    if raw_static is not None:
        entries = [raw_static] if isinstance(raw_static, (str, dict)) else raw_static
        if not isinstance(entries, list):
            errors.append(f"{where}: static-manifests: expected a list of folders")
            entries = []
        for entry in entries:
            folder, plugin = (entry, None) if isinstance(entry, str) else (None, None)
            if isinstance(entry, dict):
                folder, plugin = entry.get("path"), entry.get("plugin")
                extra = sorted(set(map(str, entry)) - {"path", "plugin"})
                if extra:
                    errors.append(f"{where}: static-manifests: unknown key {extra[0]!r} (path, plugin)")
            if not isinstance(folder, str) or not folder:
                errors.append(
                    f"{where}: static-manifests: expected a folder, or {{path: FOLDER, plugin: ...}}"
                )
                continue
            if plugin is not None and plugin not in PLUGINS:
                errors.append(f"{where}: static-manifests: {folder}: plugin must be validating or mutating")
                continue
            static.append(((root / folder).resolve(), plugin))

    mentioned = ignore | set(severity) | {c for _, codes in per_file for c in codes}
    warnings.extend(f"{where}: {problem}" for problem in code_problems(mentioned))

    return Config(
        path=path,
        root=root,
        kubernetes_version=version,
        crds=tuple((root / p).resolve() for p in strings("crds")),
        samples=tuple(str(root / p) for p in strings("samples")),
        exclude=strings("exclude"),
        ignore=frozenset(ignore),
        severity=tuple(sorted(severity.items())),
        per_file_ignores=tuple(per_file),
        min_severity=min_severity,
        static_manifests=tuple(static),
        errors=tuple(errors),
        warnings=tuple(warnings),
    )


def code_problems(codes: Iterable[str]) -> list[str]:
    """Warnings for codes named to hide or re-grade (configuration, `--ignore`, `--severity`):
    codes no diagnostic has (with the nearest one), and codes that cannot be hidden or changed."""
    from vap_lsp.codes import rules

    known = rules()
    problems: list[str] = []
    for code in sorted(set(codes)):
        if code in UNSUPPRESSIBLE:
            problems.append(f"{code} cannot be ignored or changed (a broken file never passes)")
        elif code not in known:
            problems.append(f"unknown code {code!r}{did_you_mean(code, known)}")
    return problems


class ConfigResolver:
    """Finds and caches configurations. A file is parsed again only when its size or mtime
    changed, so the server can ask on every analysis and see edits to the configuration.

    `explicit` (the CLI's `--config`) is used for every file; `isolated` ignores all files.
    """

    def __init__(
        self, explicit: Path | None = None, *, isolated: bool = False, snapshot: bool = False
    ) -> None:
        self.explicit = explicit
        self.isolated = isolated
        self._parsed: dict[Path, tuple[tuple[int, int], Config]] = {}
        # `snapshot` (one CLI run): remember which file applies to each folder, and parse each once.
        self._folders: dict[Path, Path | None] | None = {} if snapshot else None

    def for_path(self, path: Path) -> Config:
        if self.isolated:
            return Config()
        config_path = self.explicit or self._find(path)
        if config_path is None:
            return Config()
        if self._folders is not None and config_path in self._parsed:
            return self._parsed[config_path][1]
        return self.load(config_path)

    def _find(self, path: Path) -> Path | None:
        if self._folders is None:
            return find_config_file(path)
        folder = path.absolute().parent
        if folder not in self._folders:
            self._folders[folder] = find_config_file(folder)
        return self._folders[folder]

    def load(self, config_path: Path) -> Config:
        config_path = config_path.absolute()
        try:
            stat = config_path.stat()
            stamp = (stat.st_mtime_ns, stat.st_size)
        except OSError as exc:
            return Config(config_path, config_path.parent, errors=(f"{config_path}: {exc.strerror or exc}",))
        cached = self._parsed.get(config_path)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        config = load_config(config_path)
        self._parsed[config_path] = (stamp, config)
        return config

    def loaded(self) -> list[Config]:
        return [config for _, config in self._parsed.values()]

    def current(self) -> list[Config]:
        """Every configuration file seen so far that still exists, re-read if it changed (the
        server's `crds` of the configuration: files found by the scan or by a watcher)."""
        return [self.load(path) for path in list(self._parsed) if path.is_file()]


def _lookup_path(path: Path) -> Path:
    """A folder is looked up from inside it (its own configuration file counts), a file from
    its folder: `ConfigResolver.for_path` takes the folder of what it is given."""
    return path / CONFIG_FILES[0] if path.is_dir() else path


def configs_for(resolver: ConfigResolver, paths: Iterable[Path]) -> list[Config]:
    """The distinct configuration files that apply to `paths` (files or folders), in the order
    they are first met: the union whose `crds` a command loads (`crd_source` names each)."""
    seen: dict[Path, Config] = {}
    for path in paths:
        config = resolver.for_path(_lookup_path(path))
        if config.path is not None and config.path not in seen:
            seen[config.path] = config
    return list(seen.values())


# Workspace-index sources of the configuration's `crds` (`WorkspaceIndex.set_external_crds`):
# one per configuration file, ranked after `--crd` because the CLI sets `--crd` first.
CRD_SOURCE_PREFIX = "config crds "


def crd_source(config: Config) -> str:
    return CRD_SOURCE_PREFIX + str(config.path)


def configured_crds(configs: Iterable[Config]) -> list[tuple[str, str, LoadedCRDs]]:
    """The `crds` of each configuration file that has some, for the CLI and the server alike:
    (the index source to set them under, the label their problems start with, the CRDs)."""
    from vap_lsp.analysis.model.crds import load_crds  # only where some configuration names CRDs

    return [(crd_source(c), f"{c.path}: crds", load_crds(list(c.crds))) for c in configs if c.crds]


def first_kubernetes_version(configs: Iterable[Config]) -> str | None:
    """The `kubernetes-version` of the first configuration that sets one (`run`, `test`)."""
    return next((c.kubernetes_version for c in configs if c.kubernetes_version), None)


def overrides_from_client(section: Mapping[str, Any]) -> tuple[Overrides, list[str]]:
    """`vapLsp.ignore` (codes) and `vapLsp.severity` (code → level) from the client."""
    problems: list[str] = []
    ignore: frozenset[str] = frozenset()
    raw_ignore = section.get("ignore")
    if raw_ignore is not None:
        if isinstance(raw_ignore, list) and all(isinstance(c, str) for c in raw_ignore):
            ignore = frozenset(raw_ignore)
        else:
            problems.append("vapLsp.ignore: expected a list of codes")
    overrides = Overrides(ignore=ignore)
    raw_severity = section.get("severity")
    if raw_severity is not None:
        if isinstance(raw_severity, dict):
            parsed, bad = _severity_overrides(
                ((str(code), level) for code, level in raw_severity.items()),
                lambda code, level: f"vapLsp.severity {f'{code}={level}'!r}: level must be {_LEVELS_TEXT}",
            )
            overrides = Overrides(ignore=ignore, severity=parsed.severity, off=parsed.off)
            problems.extend(bad)
        else:
            problems.append("vapLsp.severity: expected a mapping of code to level")
    return overrides, problems


def split_codes(values: Sequence[str]) -> frozenset[str]:
    """`--ignore a,b --ignore c` → {a, b, c}."""
    return frozenset(c.strip() for v in values for c in v.split(",") if c.strip())


__all__ = [
    "CONFIG_FILES",
    "CRD_SOURCE_PREFIX",
    "LEVELS",
    "Config",
    "ConfigResolver",
    "Overrides",
    "code_problems",
    "configs_for",
    "crd_source",
    "find_config_file",
    "first_kubernetes_version",
    "glob_matches",
    "load_config",
    "overrides_from_client",
    "parse_severity_overrides",
    "project_root",
    "severity_level",
    "split_codes",
]
