/// One MQTT 5 user property: a name/value pair carried by a PUBLISH packet. Names may repeat.
public struct MQTTUserProperty: Sendable, Hashable, CustomStringConvertible {
    /// The property's name.
    public var name: String
    /// The property's value.
    public var value: String

    /// A user property `name` = `value`.
    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }

    public var description: String { "\(name)=\(value)" }
}
