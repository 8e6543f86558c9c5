import { forgetApiKey, readApiKey, saveApiKey } from './api-key-session.js';
import { h, replaceChildren } from './dom.js';

/**
 * Shows a sign-in form in `root` until an API key is entered, then calls `start` with it (at once when the tab already
 * has one). `Sign out` forgets the key and reloads.
 *
 * @example
 * withApiKey(document.querySelector('#app'), 'Till', (apiKey) => startTill(apiKey));
 */
export const withApiKey = (root: Element, title: string, start: (apiKey: string) => void): void => {
  const known = readApiKey();
  if (known) {
    start(known);
    return;
  }
  const input = h('input', {
    id: 'api-key',
    type: 'password',
    placeholder: 'once_…',
    autocomplete: 'off',
    required: true,
  }) as HTMLInputElement;
  const form = h(
    'form',
    {
      class: 'sign-in card',
      onsubmit: (event) => {
        event.preventDefault();
        const apiKey = input.value.trim();
        if (apiKey === '') return;
        saveApiKey(apiKey);
        replaceChildren(root);
        start(apiKey);
      },
    },
    h('h1', {}, title),
    h('label', { for: 'api-key' }, 'API key'),
    input,
    h('p', { class: 'hint' }, 'Kept in this tab only (session storage). npm start prints the demo keys.'),
    h('button', { type: 'submit', class: 'primary', id: 'sign-in' }, 'Sign in'),
  );
  replaceChildren(root, form);
};

/** A `Sign out` button: forgets the tab's key and reloads. */
export const signOutButton = (): HTMLElement =>
  h(
    'button',
    {
      class: 'quiet',
      onclick: () => {
        forgetApiKey();
        location.reload();
      },
    },
    'Sign out',
  );
