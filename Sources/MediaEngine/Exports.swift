// The engine's API is spelled in the pipeline's shared types (`CopyPipeline(options:)`, `PipelineResult`,
// `PipelineError`): whoever uses the engine gets them with it, as swift-nio's `NIO` brings `NIOCore`.
@_exported import MediaPipeline
