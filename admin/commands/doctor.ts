// `doctor --aws`: the preflight of a deployed stage (the checks are admin/doctor.ts).
import { preflightClients } from '../../core/adapters/aws-clients';
import { loadConfig } from '../../core/config';
import { doctorExitCode, doctorReport, runDoctor } from '../doctor';
import { type Command, UsageError } from './command';

export const doctorCommands: Record<string, Command> = {
  doctor: {
    args: '--aws [--stage STAGE]',
    about:
      'Preflight of a deployed stage (default dev): Bedrock models, SES, the Daily secret and key, Fargate quota, ECS role',
    prepare(flags) {
      if (!flags.aws) throw new UsageError("'doctor' checks a deployed stage: add --aws");
      const stage = flags.stage ?? 'dev';
      if (!/^[a-z][a-z0-9-]{0,19}$/.test(stage))
        throw new UsageError('--stage must be a stage name such as prod');
      return {
        async check() {
          const config = loadConfig(process.env);
          const clients = preflightClients(config);
          try {
            const results = await runDoctor(
              { clients, region: config.AWS_REGION, dailyApiUrl: config.DAILY_API_URL },
              stage,
            );
            const problems = results.filter((r) => r.status === 'problem').length;
            return {
              json: { stage, region: config.AWS_REGION, problems, checks: results },
              text: doctorReport(stage, results),
              exitCode: doctorExitCode(results),
            };
          } finally {
            for (const client of Object.values(clients)) client.destroy();
          }
        },
      };
    },
  },
};
