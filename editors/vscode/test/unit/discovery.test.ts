import * as assert from "assert";
import { commandFor, discoverServer, DiscoveryEnv, expandPath, findOnPath } from "../../src/discovery";

function env(overrides: Partial<DiscoveryEnv>, executables: string[] = [], withModule: string[] = []): DiscoveryEnv {
  return {
    configuredPath: "",
    pathEnv: "/usr/local/bin:/usr/bin",
    platform: "linux",
    home: "/home/me",
    workspaceFolder: "/work/policies",
    isExecutable: (f) => executables.includes(f),
    hasVapLsp: async (p) => withModule.includes(p),
    ...overrides,
  };
}

describe("server discovery", () => {
  it("uses vapLsp.server.path first", async () => {
    const found = await discoverServer(env({ configuredPath: "/opt/vap/bin/vap-lsp" }, ["/opt/vap/bin/vap-lsp", "/usr/bin/vap-lsp"]));
    assert.deepStrictEqual(found, { ok: true, server: { command: "/opt/vap/bin/vap-lsp", args: ["serve"], source: "setting" } });
  });

  it("runs -m vap_lsp when the setting names a Python interpreter", async () => {
    const found = await discoverServer(env({ configuredPath: "~/venv/bin/python3.11" }, ["/home/me/venv/bin/python3.11"]));
    assert.deepStrictEqual(found, {
      ok: true,
      server: { command: "/home/me/venv/bin/python3.11", args: ["-m", "vap_lsp", "serve"], source: "setting" },
    });
  });

  it("expands ${workspaceFolder} and resolves relative paths against the folder", async () => {
    assert.strictEqual(expandPath("${workspaceFolder}/.venv/bin/vap-lsp", env({})), "/work/policies/.venv/bin/vap-lsp");
    assert.strictEqual(expandPath(".venv/bin/vap-lsp", env({})), "/work/policies/.venv/bin/vap-lsp");
    assert.strictEqual(expandPath("${userHome}/bin/vap-lsp", env({})), "/home/me/bin/vap-lsp");
  });

  it("looks a bare command name in the setting up on PATH", async () => {
    const found = await discoverServer(env({ configuredPath: "vap-lsp" }, ["/usr/bin/vap-lsp"]));
    assert.ok(found.ok && found.server.command === "/usr/bin/vap-lsp");
  });

  it("reports a setting that is not an executable, without falling back", async () => {
    const found = await discoverServer(env({ configuredPath: "/nope/vap-lsp" }, ["/usr/bin/vap-lsp"]));
    assert.strictEqual(found.ok, false);
    assert.match(!found.ok ? found.message : "", /vapLsp\.server\.path is "\/nope\/vap-lsp", which is not an executable/);
  });

  it("finds vap-lsp on PATH in order", async () => {
    const found = await discoverServer(env({}, ["/usr/bin/vap-lsp", "/usr/local/bin/vap-lsp"]));
    assert.deepStrictEqual(found, { ok: true, server: { command: "/usr/local/bin/vap-lsp", args: ["serve"], source: "path" } });
  });

  it("finds vap-lsp.exe on a Windows PATH", () => {
    const found = findOnPath("vap-lsp", { pathEnv: "C:\\a;C:\\py\\Scripts", platform: "win32", isExecutable: (f) => f === "C:\\py\\Scripts\\vap-lsp.exe" });
    assert.strictEqual(found, "C:\\py\\Scripts\\vap-lsp.exe");
  });

  it("falls back to the selected interpreter when it has vap_lsp", async () => {
    const found = await discoverServer(env({ pythonInterpreter: "/work/policies/.venv/bin/python" }, [], ["/work/policies/.venv/bin/python"]));
    assert.deepStrictEqual(found, {
      ok: true,
      server: { command: "/work/policies/.venv/bin/python", args: ["-m", "vap_lsp", "serve"], source: "python" },
    });
  });

  it("says what to install when nothing is found", async () => {
    const found = await discoverServer(env({ pythonInterpreter: "/usr/bin/python3" }));
    assert.strictEqual(found.ok, false);
    const message = !found.ok ? found.message : "";
    assert.match(message, /not found/);
    assert.match(message, /\/usr\/bin\/python3\) has no vap_lsp module/);
    assert.match(message, /pipx install/);
    assert.match(message, /vapLsp\.server\.path/);
  });

  it("says so when no interpreter is selected", async () => {
    const found = await discoverServer(env({ pathEnv: undefined }));
    assert.match(!found.ok ? found.message : "", /no Python interpreter is selected/);
  });

  it("recognises interpreter names", () => {
    assert.deepStrictEqual(commandFor("/x/python", "setting", "linux").args, ["-m", "vap_lsp", "serve"]);
    assert.deepStrictEqual(commandFor("C:\\x\\python.exe", "setting", "win32").args, ["-m", "vap_lsp", "serve"]);
    assert.deepStrictEqual(commandFor("/x/vap-lsp", "setting", "linux").args, ["serve"]);
  });
});
