// How this stack adds a statement to a role (`allow`), and the one way it grants a permission whose resource needs a
// wildcard: the statement and the reason travel together, and the reason becomes the cdk-nag acknowledgement of
// exactly that finding (AwsSolutions-IAM5).
import { Stack, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import { flattenCfnReference } from 'cdk-nag/lib/utils/flatten-cfn-reference';
import { Construct } from 'constructs';

/** The IAM5 finding ids cdk-nag reports for a statement's wildcard actions and resources. */
export function wildcardFindings(stack: Stack, statement: iam.PolicyStatement): string[] {
  const findings = statement.actions.filter((a) => a.includes('*')).map((a) => `Action::${a}`);
  for (const resource of statement.resources) {
    const flat = flattenCfnReference(stack.resolve(resource));
    if (flat.includes('*')) findings.push(`Resource::${flat}`);
  }
  return findings.map((f) => `AwsSolutions-IAM5[${f}]`);
}

/** Adds `statement` to the grantee's policy and acknowledges its wildcard findings there, with `reason`. */
export function grantWithWildcard(
  grantee: iam.IGrantable,
  statement: iam.PolicyStatement,
  reason: string,
): void {
  const principal = grantee.grantPrincipal;
  principal.addToPrincipalPolicy(statement);
  if (!(principal instanceof Construct))
    throw new Error('a wildcard grant needs a principal defined in this app');
  const stack = Stack.of(principal);
  for (const id of wildcardFindings(stack, statement)) Validations.of(principal).acknowledge({ id, reason });
}

/** Adds a statement of `props` (actions on resources, under conditions) to the grantee's policy. */
export function allow(grantee: iam.IGrantable, props: iam.PolicyStatementProps): void {
  grantee.grantPrincipal.addToPrincipalPolicy(new iam.PolicyStatement(props));
}
