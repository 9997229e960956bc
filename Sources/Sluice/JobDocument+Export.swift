// Every user of the worker library speaks the job document's types (JobSpec, JSONValue, Redaction, PathPolicy).
@_exported import JobDocument
