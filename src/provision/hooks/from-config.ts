/**
 * The key hook a config's `revocation.hook` describes. Problems the schema cannot see (unset
 * variables, placeholders a call cannot know, a `{keyId}` no key has) are UsageErrors naming the
 * config path, all at once.
 */
import type { RevocationHookConfig } from '../../config/schema.ts';
import { UsageError } from '../../util/errors.ts';
import type { KeyHook, KeyRevoker } from '../../contract/handles.ts';
import { commandHook, commandRevoker } from './command.ts';
import { disposableListHook } from './disposable.ts';
import { httpHook, httpRevoker, type HttpHookOptions } from './http.ts';
import type { Env } from './template.ts';

const PATH = 'revocation.hook';

export function configKeyHook(config: RevocationHookConfig, env: Env, options: HttpHookOptions = {}): KeyHook {
  switch (config.type) {
    case 'http':
      return httpHook(config, env, PATH, options);
    case 'command':
      return commandHook(config, env, PATH);
    case 'disposable': {
      const problems: string[] = [];
      const revokeTemplate = config.revoke.type === 'http' ? JSON.stringify(config.revoke) : config.revoke.command;
      const needsId = revokeTemplate.includes('{keyId}');
      const keys = config.keys.map((ref, i) => {
        const key = env[ref.env];
        if (key === undefined || key === '')
          problems.push(`${PATH}.keys.${i}.env: environment variable ${ref.env} is not set`);
        if (needsId && ref.id === undefined)
          problems.push(`${PATH}.keys.${i}.id: required, since the revoke call uses {keyId}`);
        return { key: key ?? '', id: ref.id ?? null };
      });
      let revoke: KeyRevoker | null = null;
      try {
        revoke =
          config.revoke.type === 'http'
            ? httpRevoker(config.revoke, config.timeout, env, `${PATH}.revoke`, options)
            : { revokeKey: commandRevoker(config.revoke.command, config.timeout, env, `${PATH}.revoke.command`) };
      } catch (error) {
        if (!(error instanceof UsageError)) throw error;
        problems.push(error.message);
      }
      if (problems.length > 0 || revoke === null) throw new UsageError(problems.join('; '), 'TG_CONFIG');
      return disposableListHook(keys, revoke);
    }
  }
}
