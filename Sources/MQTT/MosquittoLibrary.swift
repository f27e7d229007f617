import CMosquitto

/// Process-wide libmosquitto facts: its one-time initialisation and its error texts.
enum MosquittoLibrary {
    /// `mosquitto_lib_init()` is not thread safe: run it exactly once, through this `static let`.
    static let initialized: Bool = mosquitto_lib_init() == MOSQ_ERR_SUCCESS.rawValue

    static let success = MOSQ_ERR_SUCCESS.rawValue
    static let noConnection = MOSQ_ERR_NO_CONN.rawValue

    /// The text of a `MOSQ_ERR_*` code.
    static func errorText(_ code: Int32) -> String {
        String(cString: mosquitto_strerror(code))
    }

    /// The text of an MQTT 5 reason code.
    static func reasonText(_ code: Int32) -> String {
        String(cString: mosquitto_reason_string(code))
    }

    /// The text of an MQTT 3.1.1 CONNACK return code.
    static func connackText(_ code: Int32) -> String {
        String(cString: mosquitto_connack_string(code))
    }
}
