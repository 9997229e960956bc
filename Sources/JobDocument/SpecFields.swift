/// The keys of one JSON object, read once each; what is left unread is reported as unknown.
struct Fields {
    let object: [String: JSONValue]
    let path: String
    private var read: Set<String> = []

    init(object: [String: JSONValue], path: String) {
        self.object = object
        self.path = path
    }

    func keyPath(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    mutating func take(_ key: String) -> JSONValue? {
        read.insert(key)
        if case .null? = object[key] { return nil }
        return object[key]
    }

    /// A string no longer than `limit` allows (when one is given).
    mutating func string(_ key: String, required: Bool, limit: TextLimit? = nil, into validator: inout SpecValidator) -> String? {
        switch take(key) {
        case nil:
            if required { validator.problem(keyPath(key), "is required") }
            return nil
        case let .string(value)?:
            guard validator.checkLength(value, limit, path: keyPath(key)) else { return nil }
            return value
        case let other?:
            validator.problem(keyPath(key), "must be a string, got \(other.typeName)")
            return nil
        }
    }

    mutating func bool(_ key: String, into validator: inout SpecValidator) -> Bool? {
        typed(key, "true or false", into: &validator) { if case let .bool(value) = $0 { value } else { nil } }
    }

    /// A finite number inside the limit's range (`-0` counts as 0).
    mutating func number(_ limit: NumberLimit, into validator: inout SpecValidator) -> Double? {
        guard let value = numberValue(limit.key, kind: "a number", into: &validator) else { return nil }
        guard value.isFinite, limit.range.contains(value) else {
            validator.problem(keyPath(limit.key), "must be \(limit.rangeText), got \(JobLimits.format(value))")
            return nil
        }
        return value == 0 ? 0 : value
    }

    /// A whole number inside the limit's range; the conversion to `Int` happens only after the range check.
    mutating func integer(_ limit: NumberLimit, into validator: inout SpecValidator) -> Int? {
        guard let value = numberValue(limit.key, kind: "a whole number", into: &validator) else { return nil }
        guard value.isFinite, value.rounded() == value, limit.range.contains(value) else {
            validator.problem(keyPath(limit.key), "must be a whole number \(limit.rangeText), got \(JobLimits.format(value))")
            return nil
        }
        let whole = Int(value)
        if limit.isEven, whole % 2 != 0 {
            validator.problem(keyPath(limit.key), "must be even, got \(whole)")
            return nil
        }
        return whole
    }

    /// The JSON number under `key`; any other type is a problem saying it must be `kind`.
    private mutating func numberValue(_ key: String, kind: String, into validator: inout SpecValidator) -> Double? {
        typed(key, kind, into: &validator) { if case let .number(value) = $0 { value } else { nil } }
    }

    /// The value under `key` as `extract` reads it; a value of another type is a problem saying it must be `kind`.
    private mutating func typed<T>(
        _ key: String, _ kind: String, into validator: inout SpecValidator, _ extract: (JSONValue) -> T?
    ) -> T? {
        guard let value = take(key) else { return nil }
        guard let typed = extract(value) else {
            validator.problem(keyPath(key), "must be \(kind), got \(value.typeName)")
            return nil
        }
        return typed
    }

    mutating func choice<T: RawRepresentable & CaseIterable>(_ key: String, _ type: T.Type, into validator: inout SpecValidator) -> T? where T.RawValue == String {
        guard let text = string(key, required: false, into: &validator) else { return nil }
        guard let value = T(rawValue: text) else {
            let allowed = T.allCases.map(\.rawValue).joined(separator: ", ")
            validator.problem(keyPath(key), "must be one of \(allowed), got \(validator.quoted(text))")
            return nil
        }
        return value
    }

    func reportUnknown(into validator: inout SpecValidator) {
        for key in object.keys.sorted() where !read.contains(key) {
            validator.problem(keyPath(SpecValidator.shortened(key)), "unknown key")
        }
    }
}
