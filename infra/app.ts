// CDK app entry (cdk.json). Placeholder until the infrastructure issue (#6) builds the stack here.
process.stderr.write('The CDK stack is not built yet (issue #6); nothing to synthesize.\n');
process.exit(1);
