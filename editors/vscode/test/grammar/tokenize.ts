// Headless tokenization with the same engine VS Code uses (vscode-textmate + vscode-oniguruma):
// the YAML base grammar with this extension's CEL grammar and injection.

import * as fs from "fs";
import * as path from "path";
import * as oniguruma from "vscode-oniguruma";
import * as textmate from "vscode-textmate";

const ROOT = path.resolve(__dirname, "..", "..", "..");
const GRAMMARS: Record<string, string> = {
  "source.yaml": require.resolve("tm-grammars/grammars/yaml.json"),
  "source.cel": path.join(ROOT, "syntaxes", "cel.tmLanguage.json"),
  "cel.injection.yaml": path.join(ROOT, "syntaxes", "cel-in-yaml.tmLanguage.json"),
};

export interface Token {
  line: number;
  text: string;
  scopes: string[];
}

let registry: textmate.Registry | undefined;

async function getRegistry(): Promise<textmate.Registry> {
  if (!registry) {
    const wasm = fs.readFileSync(require.resolve("vscode-oniguruma/release/onig.wasm"));
    await oniguruma.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength));
    registry = new textmate.Registry({
      onigLib: Promise.resolve({
        createOnigScanner: (patterns: string[]) => new oniguruma.OnigScanner(patterns),
        createOnigString: (s: string) => new oniguruma.OnigString(s),
      }),
      loadGrammar: async (scopeName: string) => {
        const file = GRAMMARS[scopeName];
        return file ? textmate.parseRawGrammar(fs.readFileSync(file, "utf8"), file) : null;
      },
      // What package.json's "injectTo": ["source.yaml"] does in VS Code.
      getInjections: (scopeName: string) => (scopeName === "source.yaml" ? ["cel.injection.yaml"] : undefined),
    });
  }
  return registry;
}

export async function tokenize(text: string): Promise<Token[]> {
  const grammar = await (await getRegistry()).loadGrammar("source.yaml");
  if (!grammar) {
    throw new Error("no YAML grammar");
  }
  const tokens: Token[] = [];
  let state = textmate.INITIAL;
  text.split(/\r?\n/).forEach((line, i) => {
    const result = grammar.tokenizeLine(line, state);
    for (const t of result.tokens) {
      tokens.push({ line: i, text: line.slice(t.startIndex, t.endIndex), scopes: t.scopes });
    }
    state = result.ruleStack;
  });
  return tokens;
}

/** Debug view: one token a line, `line: "text" scope scope …`. */
export function dump(tokens: Token[]): string {
  return tokens.map((t) => `${t.line}: ${JSON.stringify(t.text)} ${t.scopes.slice(1).join(" ")}`).join("\n");
}
