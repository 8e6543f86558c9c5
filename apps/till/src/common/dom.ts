type Child = Node | string | number | false | null | undefined;
type Attributes = Readonly<Record<string, string | number | boolean | undefined | ((event: Event) => void)>>;

/**
 * Makes an element: attributes (`on…` ones become listeners, `false`/`undefined` ones are left out) and children.
 *
 * @example
 * h('button', { class: 'primary', onclick: () => pay() }, 'Pay');
 */
export const h = (tag: string, attributes: Attributes = {}, ...children: Child[]): HTMLElement => {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue;
    if (typeof value === 'function') element.addEventListener(name.slice(2), value);
    else element.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children) {
    if (child === false || child === null || child === undefined) continue;
    element.append(typeof child === 'object' ? child : String(child));
  }
  return element;
};

/** Replaces an element's children. */
export const replaceChildren = (parent: Element, ...children: Child[]): void => {
  parent.replaceChildren(
    ...children
      .filter(
        (child): child is Node | string | number => child !== false && child !== null && child !== undefined,
      )
      .map((child) => (typeof child === 'object' ? child : String(child))),
  );
};
