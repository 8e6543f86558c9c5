import type { onSendAsyncHookHandler } from 'fastify';
import { replaceSealedSecrets } from '@once/webhooks';
import type { SecretsKeyring } from '@once/webhooks';

/**
 * A route's `onSend` hook that unseals the secrets its stored answer holds, for its caller only: the key log, the key
 * table and the console keep the answer sealed, while the first answer and every replay of the key carry the secret
 * in plain text, the same bytes each time (unsealing gives back exactly what was sealed). A secret that cannot be
 * unsealed (its key left `ONCE_SECRETS_KEY`) fails the request rather than show the envelope as the secret.
 *
 * @example
 * app.command({ url: '/', onSend: revealSealedSecrets(keyring), command: registerWebhookEndpoint, schema });
 */
export const revealSealedSecrets =
  (secrets: SecretsKeyring): onSendAsyncHookHandler<unknown> =>
  async (_request, _reply, payload) =>
    typeof payload === 'string' ? replaceSealedSecrets(payload, (sealed) => secrets.unseal(sealed)) : payload;
