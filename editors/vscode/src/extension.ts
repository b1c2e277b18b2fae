import { execFile } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as vscode from "vscode";
import {
  DidChangeConfigurationNotification,
  ExecuteCommandRequest,
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
} from "vscode-languageclient/node";
import { discoverServer, DiscoveryEnv } from "./discovery";
import { configurationItem, findSampleCommand, settingsPayload } from "./settings";

let client: LanguageClient | undefined;
let output: vscode.OutputChannel;

function config(): vscode.WorkspaceConfiguration {
  return vscode.workspace.getConfiguration("vapLsp");
}

function get(key: string): unknown {
  return config().get(key);
}

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

function hasVapLsp(python: string): Promise<boolean> {
  return new Promise((resolve) => {
    execFile(python, ["-c", "import vap_lsp"], { timeout: 15000 }, (error) => resolve(!error));
  });
}

/** The interpreter selected with the Python extension, else `python.defaultInterpreterPath`. */
async function selectedPython(resource: vscode.Uri | undefined): Promise<string | undefined> {
  const extension = vscode.extensions.getExtension("ms-python.python");
  if (extension) {
    try {
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      const api: any = extension.isActive ? extension.exports : await extension.activate();
      const active = api?.environments?.getActiveEnvironmentPath?.(resource);
      if (active?.path) {
        return active.path as string;
      }
      const details = api?.settings?.getExecutionDetails?.(resource);
      if (details?.execCommand?.[0]) {
        return details.execCommand[0] as string;
      }
    } catch (error) {
      output.appendLine(`Could not ask the Python extension for the interpreter: ${error}`);
    }
  }
  const fallback = vscode.workspace.getConfiguration("python", resource).get<string>("defaultInterpreterPath");
  return fallback && fallback !== "python" ? fallback : undefined;
}

async function startClient(context: vscode.ExtensionContext): Promise<void> {
  const folder = vscode.workspace.workspaceFolders?.[0];
  const env: DiscoveryEnv = {
    configuredPath: config().get<string>("server.path") ?? "",
    pathEnv: process.env.PATH,
    platform: process.platform,
    pythonInterpreter: await selectedPython(folder?.uri),
    workspaceFolder: folder?.uri.fsPath,
    home: os.homedir(),
    isExecutable,
    hasVapLsp,
  };
  const found = await discoverServer(env);
  if (!found.ok) {
    output.appendLine(found.message);
    const choice = await vscode.window.showErrorMessage(found.message, "Open Settings", "Show Output");
    if (choice === "Open Settings") {
      await vscode.commands.executeCommand("workbench.action.openSettings", "vapLsp.server.path");
    } else if (choice === "Show Output") {
      output.show();
    }
    return;
  }
  const { command, args, source } = found.server;
  output.appendLine(`Starting ${command} ${args.join(" ")} (found via ${source})`);
  const serverOptions: ServerOptions = { command, args, options: { env: process.env } };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [
      { scheme: "file", language: "yaml" },
      { scheme: "untitled", language: "yaml" },
    ],
    initializationOptions: settingsPayload(get),
    outputChannel: output,
    traceOutputChannel: output,
    middleware: {
      workspace: {
        // The server may pull its settings; answer with the same values that are pushed.
        configuration: async (params, token, next) => {
          const fromNext = await next(params, token);
          if (!Array.isArray(fromNext)) {
            return fromNext;
          }
          return params.items.map((item, i) => configurationItem(item.section, get) ?? fromNext[i]);
        },
      },
    },
  };
  client = new LanguageClient("vapLsp", "vap-lsp", serverOptions, clientOptions);
  await client.start();
}

async function stopClient(): Promise<void> {
  const running = client;
  client = undefined;
  if (running) {
    await running.stop();
  }
}

async function runPolicyAgainstSamples(): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (!client || !editor) {
    void vscode.window.showWarningMessage("Open a policy YAML file with the vap-lsp server running first.");
    return;
  }
  const commands = client.initializeResult?.capabilities.executeCommandProvider?.commands ?? [];
  const command = findSampleCommand(commands);
  if (!command) {
    void vscode.window.showInformationMessage(
      "This vap-lsp server cannot run policies against samples yet: update vap-lsp.",
    );
    return;
  }
  const samplePaths = (get("samples.paths") as string[] | undefined) ?? [];
  const result = await client.sendRequest(ExecuteCommandRequest.type, {
    command,
    arguments: [{ uri: editor.document.uri.toString(), samplePaths }],
  });
  if (result !== null && result !== undefined) {
    output.appendLine(typeof result === "string" ? result : JSON.stringify(result, null, 2));
    output.show(true);
  }
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  output = vscode.window.createOutputChannel("vap-lsp");
  context.subscriptions.push(
    output,
    vscode.commands.registerCommand("vapLsp.restartServer", async () => {
      await stopClient();
      await startClient(context);
    }),
    vscode.commands.registerCommand("vapLsp.showOutput", () => output.show()),
    vscode.commands.registerCommand("vapLsp.runPolicyAgainstSamples", runPolicyAgainstSamples),
    vscode.workspace.onDidChangeConfiguration(async (event) => {
      if (event.affectsConfiguration("vapLsp.server")) {
        await stopClient();
        await startClient(context);
      } else if (event.affectsConfiguration("vapLsp") && client) {
        await client.sendNotification(DidChangeConfigurationNotification.type, { settings: settingsPayload(get) });
      }
    }),
  );
  await startClient(context);
}

export async function deactivate(): Promise<void> {
  await stopClient();
}
