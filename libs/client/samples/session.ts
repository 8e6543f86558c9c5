/** Where the samples send their requests, and as whom (an API key of the Once api). */
export interface Session {
  readonly baseUrl: string;
  readonly token: string;
}
