; Helix reads the first yaml/injections.scm it finds, so this file keeps Helix's comment injection
; and adds CEL in Kubernetes admission policies: the values of expression, messageExpression and
; valueExpression. Helix has no #offset!: quoted scalars are injected with their quotes, block
; scalars with their indicator, which the CEL parser skips as an error.

((comment) @injection.content
 (#set! injection.language "comment"))

; plain scalars
(block_mapping_pair
  key: (flow_node) @_key (#any-of? @_key "expression" "messageExpression" "valueExpression")
  value: (flow_node
           (plain_scalar
             (string_scalar) @injection.content))
  (#set! injection.language "cel"))

; literal (|) and folded (>) block scalars
(block_mapping_pair
  key: (flow_node) @_key (#any-of? @_key "expression" "messageExpression" "valueExpression")
  value: (block_node
           (block_scalar) @injection.content)
  (#set! injection.language "cel"))
