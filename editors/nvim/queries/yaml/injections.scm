; extends
; CEL in Kubernetes admission policies: the values of expression, messageExpression and
; valueExpression (needs the `cel` parser: `:TSInstall cel`).

; plain scalars
(block_mapping_pair
  key: (flow_node) @_key
  (#any-of? @_key "expression" "messageExpression" "valueExpression")
  value: (flow_node
    (plain_scalar
      (string_scalar) @injection.content))
  (#set! injection.language "cel"))

; double- and single-quoted scalars, without the quotes
(block_mapping_pair
  key: (flow_node) @_key
  (#any-of? @_key "expression" "messageExpression" "valueExpression")
  value: (flow_node
    [
      (double_quote_scalar)
      (single_quote_scalar)
    ] @injection.content)
  (#set! injection.language "cel")
  (#offset! @injection.content 0 1 0 -1))

; literal (|) and folded (>) block scalars, after the indicator
(block_mapping_pair
  key: (flow_node) @_key
  (#any-of? @_key "expression" "messageExpression" "valueExpression")
  value: (block_node
    (block_scalar) @injection.content)
  (#set! injection.language "cel")
  (#offset! @injection.content 0 1 0 0))
