// Name of the file a running local stack leaves in DATA_DIR ({pid, base_url, dynamodb_endpoint}) for the admin CLI.
export const stackFileName = 'stack.json';
