// Names of the stack outputs the admin CLI reads; plain constants, so the CLI loads no CDK to know them.

export const stackName = (stage: string) => `MeetingBot-${stage}`;

/** Stack outputs the deployment preflight reads (admin/doctor.ts). */
export const doctorOutputKeys = {
  conversationModel: 'ConversationModelId',
  insightsModel: 'InsightsModelId',
  sesIdentity: 'SesIdentity',
  dailySecret: 'DailyApiKeySecretName',
  poolMax: 'BotPoolMax',
  taskCpu: 'BotTaskCpu',
} as const;
