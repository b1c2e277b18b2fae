"""What a policy is: objects, workspace, kinds and their schemas, requests, guarantees, narrowing,
the policy context every check and editor feature reads. Never imports a check."""
