// Errors the service layer raises; the HTTP edge turns them into problem+json.
export { HttpError } from '../adapters/http/problem';
