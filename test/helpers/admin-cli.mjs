// A stand-in for a deployment's own key CLI, driving the reference target's admin API:
//   node admin-cli.mjs provision        prints "<key> <id>"
//   node admin-cli.mjs revoke <keyId>   exits 0 once revoked
// ADMIN_URL and ORG_ID come from the environment.
const [command, id] = process.argv.slice(2);
const base = process.env.ADMIN_URL;
const call = async (path, body) => {
  const response = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body ?? {}),
    signal: AbortSignal.timeout(5000),
  });
  const json = await response.json();
  if (!response.ok) throw new Error(`${response.status} ${JSON.stringify(json)}`);
  return json;
};
try {
  if (command === 'provision') {
    const created = await call(`/admin/orgs/${process.env.ORG_ID}/keys`, { scopes: ['jobs.read'], env: 'test' });
    console.log(`${created.key} ${created.id}`);
  } else if (command === 'revoke') {
    await call(`/admin/keys/${encodeURIComponent(id)}/revoke`);
  } else {
    throw new Error(`unknown command ${command}`);
  }
} catch (error) {
  console.error(`admin-cli: ${error.message}`);
  process.exit(1);
}
