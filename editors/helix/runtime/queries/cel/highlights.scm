; CEL highlighting for Helix (grammar: bufbuild/tree-sitter-cel, pinned in ../../../languages.toml).
; Adapted from nvim-treesitter's queries/cel/highlights.scm (Apache-2.0).

[
  "-" "!" "*" "/" "&&" "%" "+" "<" "<=" "!=" "==" ">" ">=" "||" "?"
] @operator

(conditional_expression ":" @operator)

[ "(" ")" "[" "]" "{" "}" ] @punctuation.bracket

[ "," "." ] @punctuation.delimiter

"in" @keyword.operator

(call_expression
  function: (identifier) @function)

(member_call_expression
  function: (identifier) @function.method)

(select_expression
  member: (identifier) @variable.other.member)

((identifier) @variable.builtin
 (#any-of? @variable.builtin "object" "oldObject" "params" "request" "namespaceObject" "authorizer" "variables" "self" "oldSelf"))

(identifier) @variable

[ (string_literal) (bytes_literal) ] @string

[ (int_literal) (uint_literal) (float_literal) ] @constant.numeric

[ (true) (false) ] @constant.builtin.boolean

(null) @constant.builtin

(comment) @comment
