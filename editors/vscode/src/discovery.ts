// Finding the vap-lsp server: `vapLsp.server.path`, else `vap-lsp` on PATH, else the selected
// Python interpreter's `-m vap_lsp`. Pure logic over an injected environment (unit-tested).

import * as path from "path";

export interface ServerCommand {
  command: string;
  args: string[];
  /** Where the command came from, for the output channel. */
  source: "setting" | "path" | "python";
}

export interface DiscoveryEnv {
  /** The `vapLsp.server.path` setting ("" when unset). */
  configuredPath: string;
  /** The PATH environment variable. */
  pathEnv: string | undefined;
  platform: NodeJS.Platform;
  /** The Python interpreter selected in VS Code, if any. */
  pythonInterpreter?: string;
  workspaceFolder?: string;
  home?: string;
  isExecutable(file: string): boolean;
  /** Whether `python -c "import vap_lsp"` succeeds. */
  hasVapLsp(python: string): Promise<boolean>;
}

export type Discovery = { ok: true; server: ServerCommand } | { ok: false; message: string };

export const INSTALL_HINT =
  "Install vap-lsp (Python ≥ 3.11) so that `vap-lsp` is on your PATH — e.g. `pipx install <path to the vap-lsp clone>` — " +
  "or `pip install <path to the vap-lsp clone>` into the Python interpreter selected in VS Code, " +
  "or set `vapLsp.server.path` to the `vap-lsp` executable.";

const PYTHON_NAME = /^python(\d+(\.\d+)?)?(\.exe)?$/i;

/** `vapLsp.server.path` with `~`, `${userHome}` and `${workspaceFolder}` expanded, made absolute. */
export function expandPath(value: string, env: Pick<DiscoveryEnv, "home" | "workspaceFolder" | "platform">): string {
  let p = value.trim();
  if (env.home) {
    p = p.replace(/\$\{userHome\}/g, env.home);
    if (p === "~" || p.startsWith("~/") || p.startsWith("~\\")) {
      p = env.home + p.slice(1);
    }
  }
  if (env.workspaceFolder) {
    p = p.replace(/\$\{workspaceFolder\}/g, env.workspaceFolder);
  }
  const lib = env.platform === "win32" ? path.win32 : path.posix;
  if (!lib.isAbsolute(p) && env.workspaceFolder && (p.includes("/") || p.includes("\\"))) {
    p = lib.resolve(env.workspaceFolder, p);
  }
  return p;
}

/** The command line for an executable: a Python interpreter runs `-m vap_lsp serve`. */
export function commandFor(executable: string, source: ServerCommand["source"], platform: NodeJS.Platform): ServerCommand {
  const lib = platform === "win32" ? path.win32 : path.posix;
  if (PYTHON_NAME.test(lib.basename(executable))) {
    return { command: executable, args: ["-m", "vap_lsp", "serve"], source };
  }
  return { command: executable, args: ["serve"], source };
}

/** The first `name` on PATH that is an executable file. */
export function findOnPath(name: string, env: Pick<DiscoveryEnv, "pathEnv" | "platform" | "isExecutable">): string | undefined {
  const lib = env.platform === "win32" ? path.win32 : path.posix;
  const names = env.platform === "win32" ? [`${name}.exe`, `${name}.cmd`, `${name}.bat`, name] : [name];
  for (const dir of (env.pathEnv ?? "").split(lib.delimiter)) {
    if (!dir) {
      continue;
    }
    for (const n of names) {
      const candidate = lib.join(dir, n);
      if (env.isExecutable(candidate)) {
        return candidate;
      }
    }
  }
  return undefined;
}

export async function discoverServer(env: DiscoveryEnv): Promise<Discovery> {
  if (env.configuredPath.trim()) {
    const configured = expandPath(env.configuredPath, env);
    const resolved = configured.includes("/") || configured.includes("\\") ? configured : findOnPath(configured, env);
    if (resolved && env.isExecutable(resolved)) {
      return { ok: true, server: commandFor(resolved, "setting", env.platform) };
    }
    return {
      ok: false,
      message:
        `The setting vapLsp.server.path is "${env.configuredPath}", which is not an executable file. ` +
        "Correct it or clear it to use `vap-lsp` from PATH.",
    };
  }
  const onPath = findOnPath("vap-lsp", env);
  if (onPath) {
    return { ok: true, server: commandFor(onPath, "path", env.platform) };
  }
  if (env.pythonInterpreter && (await env.hasVapLsp(env.pythonInterpreter))) {
    return {
      ok: true,
      server: { command: env.pythonInterpreter, args: ["-m", "vap_lsp", "serve"], source: "python" },
    };
  }
  const python = env.pythonInterpreter
    ? `the selected Python interpreter (${env.pythonInterpreter}) has no vap_lsp module`
    : "no Python interpreter is selected";
  return {
    ok: false,
    message: `The vap-lsp language server was not found: vapLsp.server.path is not set, vap-lsp is not on PATH, and ${python}. ${INSTALL_HINT}`,
  };
}
