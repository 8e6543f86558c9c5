/** A command as the engine runs it and the key log stores it. */
export interface TypedCommand<Data = unknown> {
  readonly type: string;
  readonly version: number;
  readonly data: Data;
  /** Fields of `data` the key log stores as references (see `CommandDefinition.secretFields`). */
  readonly secretFields?: readonly string[];
}
