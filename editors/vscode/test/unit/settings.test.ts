import * as assert from "assert";
import { configurationItem, findSampleCommand, serverSettings, settingsPayload } from "../../src/settings";

function getter(values: Record<string, unknown>) {
  return (key: string) => values[key];
}

describe("settings sent to the server", () => {
  it("passes the Kubernetes version, debounce and sample paths under vapLsp", () => {
    const get = getter({ kubernetesVersion: " v1.33 ", debounceMs: 200, "samples.paths": ["samples/*.yaml", ""], "trace.server": "verbose" });
    assert.deepStrictEqual(settingsPayload(get), {
      vapLsp: { kubernetesVersion: "1.33", debounceMs: 200, samplePaths: ["samples/*.yaml"] },
    });
  });

  it("passes the CRD paths of vapLsp.crds", () => {
    const get = getter({ crds: ["../platform/crds", " ", 3] });
    assert.deepStrictEqual(settingsPayload(get), { vapLsp: { crds: ["../platform/crds"] } });
  });

  it("omits empty or invalid values so the server keeps its defaults", () => {
    assert.deepStrictEqual(serverSettings(getter({ kubernetesVersion: "", debounceMs: -5 })), {});
    assert.deepStrictEqual(serverSettings(getter({ kubernetesVersion: 1.33, debounceMs: "150" })), {});
    assert.deepStrictEqual(serverSettings(getter({ debounceMs: 20000 })), {});
  });

  it("answers workspace/configuration for the section and its keys", () => {
    const get = getter({ kubernetesVersion: "1.31", "samples.paths": [] });
    assert.deepStrictEqual(configurationItem("vapLsp", get), { kubernetesVersion: "1.31", samplePaths: [] });
    assert.strictEqual(configurationItem("vapLsp.kubernetesVersion", get), "1.31");
    assert.strictEqual(configurationItem("vapLsp.debounceMs", get), null);
    assert.strictEqual(configurationItem("yaml", get), undefined);
    assert.strictEqual(configurationItem(undefined, get), undefined);
  });

  it("finds the server's run-against-samples command", () => {
    assert.strictEqual(findSampleCommand(["vapLsp.other", "vapLsp.runSamples"]), "vapLsp.runSamples");
    assert.strictEqual(findSampleCommand([]), undefined);
  });
});
