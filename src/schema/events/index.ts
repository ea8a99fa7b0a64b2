// Implemented by the events domain.
export {};
