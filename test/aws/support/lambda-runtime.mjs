// A warm Lambda execution environment for one function bundle: a child process with only the function's environment,
// which imports the bundle once and runs each event the test sends it (IPC), as the Node.js runtime would.
const bundle = process.argv[2];
let handler;
process.on('message', async ({ id, event }) => {
  try {
    handler ??= (await import(bundle)).handler;
    const context = { awsRequestId: `req-${id}`, functionName: process.env.AWS_LAMBDA_FUNCTION_NAME };
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
