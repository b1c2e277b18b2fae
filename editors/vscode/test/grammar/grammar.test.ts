// The CEL injection grammar, tokenized headless as VS Code does (vscode-textmate + vscode-oniguruma)
// over the TextMate YAML grammar: the scopes of each token are asserted.

import * as assert from "assert";
import * as fs from "fs";
import * as path from "path";
import { dump, Token, tokenize } from "./tokenize";

const FIXTURES = path.resolve(__dirname, "..", "..", "..", "test", "grammar", "fixtures");
const CEL = ["meta.embedded.expression.cel", "source.cel"];

/** [line, token text, scopes it must have, which occurrence on the line (default 0)] */
type Expect = [line: number, text: string, scopes: string[], nth?: number];

function find(tokens: Token[], line: number, text: string, nth = 0): Token {
  const token = tokens.filter((t) => t.line === line && t.text === text)[nth];
  if (!token) {
    const lineDump = dump(tokens.filter((t) => t.line === line));
    assert.fail(`no token ${JSON.stringify(text)} on line ${line}:\n${lineDump}`);
  }
  return token;
}

function expectScopes(tokens: Token[], expectations: Expect[]): void {
  for (const [line, text, scopes, nth] of expectations) {
    const token = find(tokens, line, text, nth);
    for (const scope of scopes) {
      assert.ok(
        token.scopes.includes(scope),
        `line ${line} ${JSON.stringify(text)}: expected ${scope} in [${token.scopes.join(", ")}]`,
      );
    }
  }
}

function expectNotCel(tokens: Token[], line: number): void {
  for (const t of tokens.filter((t) => t.line === line)) {
    assert.ok(!t.scopes.includes("source.cel"), `line ${line} ${JSON.stringify(t.text)} is CEL: ${t.scopes.join(" ")}`);
  }
}

/** Every non-blank token between the line's value start and end is CEL. */
function expectAllCel(tokens: Token[], line: number, from: number, to = Infinity): void {
  const onLine = tokens.filter((t) => t.line === line);
  onLine.slice(from, to === Infinity ? undefined : to).forEach((t) => {
    if (t.text.trim()) {
      assert.ok(t.scopes.includes("source.cel"), `line ${line} ${JSON.stringify(t.text)} is not CEL: ${t.scopes.join(" ")}`);
    }
  });
}

describe("CEL injection grammar", function () {
  this.timeout(20000);
  let tokens: Token[];

  before(async () => {
    tokens = await tokenize(fs.readFileSync(path.join(FIXTURES, "styles.yaml"), "utf8"));
  });

  it("scopes the key, not the indentation or key, as CEL", () => {
    expectScopes(tokens, [
      [8, "expression", ["entity.name.tag.yaml"]],
      [9, "-", ["punctuation.definition.block.sequence.item.yaml"]],
      [9, "expression", ["entity.name.tag.yaml"]],
      [23, "messageExpression", ["entity.name.tag.yaml"]],
      [29, "valueExpression", ["entity.name.tag.yaml"]],
    ]);
    for (const line of [8, 9, 23, 29]) {
      assert.ok(!find(tokens, line, ":").scopes.includes("source.cel"));
    }
  });

  it("plain scalars, up to a comment", () => {
    expectScopes(tokens, [
      [8, "object", [...CEL, "variable.language.cel"]],
      [8, "replicas", [...CEL, "variable.other.property.cel"]],
      [8, ">=", [...CEL, "keyword.operator.comparison.cel"]],
      [8, "2", [...CEL, "constant.numeric.integer.cel"]],
      [8, " a comment", ["comment.line.number-sign.yaml"]],
      [9, "params", [...CEL, "variable.language.cel"]],
      [9, "limit", [...CEL, "variable.other.property.cel"]],
    ]);
    assert.ok(!find(tokens, 8, " a comment").scopes.includes("source.cel"));
    expectNotCel(tokens, 10);
  });

  it("plain scalars continued on more-indented lines", () => {
    expectScopes(tokens, [
      [12, "all", [...CEL, "support.function.macro.cel"]],
      [13, "startsWith", [...CEL, "entity.name.function.member.cel"]],
      [13, "team", [...CEL, "string.quoted.single.cel"]],
    ]);
    expectAllCel(tokens, 13, 0);
    expectNotCel(tokens, 14);
  });

  it("single-quoted scalars with '' escapes", () => {
    expectScopes(tokens, [
      [15, "'", ["string.quoted.single.yaml", "punctuation.definition.string.begin.yaml"]],
      [15, "has", [...CEL, "support.function.macro.cel"]],
      [15, "&&", [...CEL, "keyword.operator.logical.cel"]],
      [15, "''", [...CEL, "constant.character.escape.single-quote.yaml"]],
      [15, "y", [...CEL, "string.quoted.double.cel"]],
    ]);
    const onLine = tokens.filter((t) => t.line === 15);
    const last = onLine[onLine.length - 1];
    assert.deepStrictEqual([last.text, last.scopes.includes("source.cel")], ["'", false]);
    assert.ok(last.scopes.includes("punctuation.definition.string.end.yaml"));
  });

  it("literal block scalars, to the end of the indented block", () => {
    expectScopes(tokens, [
      [17, "|", ["keyword.control.flow.block-scalar.yaml"]],
      [18, "object", [...CEL, "variable.language.cel"]],
      [18, "<=", [...CEL, "keyword.operator.comparison.cel"]],
      [18, "&&", [...CEL, "keyword.operator.logical.cel"]],
      [19, "variables", [...CEL, "variable.language.cel"]],
      [19, "plain", [...CEL, "variable.other.property.cel"]],
    ]);
    assert.ok(!find(tokens, 17, "|").scopes.includes("source.cel"));
    // The next key of the same mapping is YAML again, its string value not CEL.
    expectNotCel(tokens, 20);
    expectScopes(tokens, [[20, "object.spec is not CEL here", ["string.quoted.double.yaml"]]]);
  });

  it("folded block scalars with chomping and indentation indicators", () => {
    expectScopes(tokens, [
      [21, ">", ["keyword.control.flow.block-scalar.yaml"]],
      [21, "-", ["storage.modifier.chomping-indicator.yaml"], 1],
      [22, "size", [...CEL, "entity.name.function.cel"]],
      [22, "64", [...CEL, "constant.numeric.integer.cel"]],
      [25, "2-", ["storage.modifier.chomping-indicator.yaml"]],
      [26, "true", [...CEL, "constant.language.cel"]],
      [29, ">", ["keyword.control.flow.block-scalar.yaml"]],
      [30, "1u", [...CEL, "constant.numeric.integer.cel"]],
      [30, "raw\\n", [...CEL, "string.quoted.single.raw.cel"]],
      [30, "b", [...CEL, "storage.type.string.cel"]],
      [30, "bytes", [...CEL, "string.quoted.double.cel"]],
    ]);
    expectNotCel(tokens, 31);
  });

  it("double-quoted scalars with YAML escapes", () => {
    expectScopes(tokens, [
      [23, "name ", [...CEL, "string.quoted.single.cel"]],
      [23, "+", [...CEL, "keyword.operator.arithmetic.cel"]],
      [23, "\\\"", [...CEL, "string.quoted.double.cel", "punctuation.definition.string.begin.cel"]],
      [23, "\\\\", [...CEL, "string.quoted.double.cel", "constant.character.escape.yaml"]],
      [37, "true", [...CEL, "constant.language.cel"]],
    ]);
    for (const line of [23, 37]) {
      const onLine = tokens.filter((t) => t.line === line && t.text === '"');
      assert.strictEqual(onLine.length, 2, `two YAML quotes on line ${line}`);
      for (const quote of onLine) {
        assert.ok(quote.scopes.includes("string.quoted.double.yaml") && !quote.scopes.includes("source.cel"));
      }
    }
    expectNotCel(tokens, 24);
  });

  it("leaves comments, other keys and block scalars of other keys alone", () => {
    expectNotCel(tokens, 0); // # expression: "…"
    expectNotCel(tokens, 33); // expressions: (not a CEL key)
    expectNotCel(tokens, 36); // message: | … expression: …
    expectScopes(tokens, [[36, "expression: not CEL inside another key's block scalar", ["string.unquoted.block.yaml"]]]);
  });

  it("highlights every expression of the bundled examples", async () => {
    const example = path.resolve(__dirname, "..", "..", "..", "..", "..", "examples", "valid", "require-team-label.yaml");
    const ex = await tokenize(fs.readFileSync(example, "utf8"));
    const lines = fs.readFileSync(example, "utf8").split("\n");
    const celKeyLines = lines.flatMap((l, i) => (/^\s*(- )?(expression|messageExpression|valueExpression):/.test(l) ? [i] : []));
    assert.strictEqual(celKeyLines.length, 4);
    for (const line of celKeyLines) {
      const onLine = ex.filter((t) => t.line === line);
      const quotes = onLine.map((t, i) => (t.text === '"' ? i : -1)).filter((i) => i >= 0);
      assert.strictEqual(quotes.length, 2, dump(onLine));
      expectAllCel(ex, line, quotes[0] + 1, quotes[1]);
    }
  });
});
