// The settings sent to the server (initializationOptions, workspace/didChangeConfiguration and
// answers to workspace/configuration): only meaningful values, so the server keeps its defaults.

export interface ServerSettings {
  kubernetesVersion?: string;
  debounceMs?: number;
  samplePaths?: string[];
  crds?: string[];
}

/** Reads one key of the `vapLsp` section (as `WorkspaceConfiguration.get`). */
export type SettingGetter = (key: string) => unknown;

export function serverSettings(get: SettingGetter): ServerSettings {
  const out: ServerSettings = {};
  const version = get("kubernetesVersion");
  if (typeof version === "string" && version.trim()) {
    out.kubernetesVersion = version.trim().replace(/^v/, "");
  }
  const debounce = get("debounceMs");
  if (typeof debounce === "number" && Number.isFinite(debounce) && debounce >= 0 && debounce <= 10000) {
    out.debounceMs = debounce;
  }
  const samples = get("samples.paths");
  if (Array.isArray(samples)) {
    out.samplePaths = samples.filter((s): s is string => typeof s === "string" && s.trim() !== "");
  }
  const crds = get("crds");
  if (Array.isArray(crds)) {
    out.crds = crds.filter((s): s is string => typeof s === "string" && s.trim() !== "");
  }
  return out;
}

/** The payload of initializationOptions and workspace/didChangeConfiguration. */
export function settingsPayload(get: SettingGetter): { vapLsp: ServerSettings } {
  return { vapLsp: serverSettings(get) };
}

/** Answers a workspace/configuration item: the `vapLsp` section, one key of it, or undefined. */
export function configurationItem(section: string | undefined, get: SettingGetter): unknown {
  if (section === undefined) {
    return undefined;
  }
  const settings = serverSettings(get) as Record<string, unknown>;
  if (section === "vapLsp") {
    return settings;
  }
  if (section.startsWith("vapLsp.")) {
    return settings[section.slice("vapLsp.".length)] ?? null;
  }
  return undefined;
}

/** The server's command that runs policies against sample objects, among those it advertises. */
export function findSampleCommand(commands: readonly string[]): string | undefined {
  return commands.find((c) => /sample/i.test(c));
}
