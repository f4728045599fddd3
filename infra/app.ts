// CDK app entry (cdk.json): one MeetingBotStack configured from context, checked by cdk-nag on every synth.
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { type MeetingBotSettings, settingsFromContext } from './settings';
import { MeetingBotStack, stackName } from './stack';

const app = new App();
let settings: MeetingBotSettings;
try {
  settings = settingsFromContext((key) => app.node.tryGetContext(key));
} catch (err) {
  // A bad -c value is the deployer's to fix: say which, without a stack trace (docs/deploy.md lists them all).
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}

// Environment-agnostic on purpose: synthesis needs no AWS account and makes no look-ups, so CI and `cdk deploy`
// produce the same template; the account and region are the deploying credentials'.
new MeetingBotStack(app, stackName(settings.stage), { settings });
Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
app.synth();
