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
        switch take(key) {
        case nil: return nil
        case let .bool(value)?: return value
        case let other?:
            validator.problem(keyPath(key), "must be true or false, got \(other.typeName)")
            return nil
        }
    }

    /// A finite number inside the limit's range (`-0` counts as 0).
    mutating func number(_ limit: NumberLimit, into validator: inout SpecValidator) -> Double? {
        let key = limit.key
        switch take(key) {
        case nil: return nil
        case let .number(value)?:
            guard value.isFinite, limit.range.contains(value) else {
                validator.problem(keyPath(key), "must be \(limit.rangeText), got \(JobLimits.format(value))")
                return nil
            }
            return value == 0 ? 0 : value
        case let other?:
            validator.problem(keyPath(key), "must be a number, got \(other.typeName)")
            return nil
        }
    }

    /// A whole number inside the limit's range; the conversion to `Int` happens only after the range check.
    mutating func integer(_ limit: NumberLimit, into validator: inout SpecValidator) -> Int? {
        let key = limit.key
        switch take(key) {
        case nil: return nil
        case let .number(value)?:
            guard value.isFinite, value.rounded() == value, limit.range.contains(value) else {
                validator.problem(keyPath(key), "must be a whole number \(limit.rangeText), got \(JobLimits.format(value))")
                return nil
            }
            let whole = Int(value)
            if limit.isEven, whole % 2 != 0 {
                validator.problem(keyPath(key), "must be even, got \(whole)")
                return nil
            }
            return whole
        case let other?:
            validator.problem(keyPath(key), "must be a whole number, got \(other.typeName)")
            return nil
        }
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
