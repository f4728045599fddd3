// Name of the file a running local stack leaves in DATA_DIR ({pid, base_url, endpoints, recordings_dir}) for the admin CLI.
export const stackFileName = 'stack.json';
