// A warm Lambda execution environment for one function bundle: a child process with only the function's environment,
// which imports the bundle once and runs each event the test sends it (IPC), as the Node.js runtime would.
const bundle = process.argv[2];
let handler;
process.on('message', async ({ id, event, timeoutMs }) => {
  try {
    handler ??= (await import(bundle)).handler;
    // Lambda's context: the time left counts down from the function's timeout (the invocation is not stopped here).
    const deadline = Date.now() + timeoutMs;
    const context = {
      awsRequestId: `req-${id}`,
      functionName: process.env.AWS_LAMBDA_FUNCTION_NAME,
      getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    };
    const result = await handler(event, context);
    process.send({ id, ok: true, result: result ?? null });
  } catch (err) {
    process.send({
      id,
      ok: false,
      error: err instanceof Error ? `${err.name}: ${err.message}` : String(err),
    });
  }
});
process.send({ ready: true });
