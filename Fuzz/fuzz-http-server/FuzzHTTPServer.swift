import VersolaHTTP

/// libFuzzer entry point: feeds the input to ``HTTPRequestParser`` whole and in splits
/// chosen by the input itself, and checks that both ways agree on the requests found and on
/// whether the input failed. Decoded query and form items are computed for every request.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let limits = HTTPServerLimits(
        maxRequestLineBytes: 256, maxHeaderCount: 16, maxHeaderBytes: 1024, maxBodyBytes: 4096)

    let whole = parse(bytes, limits: limits, splitSeed: nil)
    let split = parse(bytes, limits: limits, splitSeed: bytes.first.map(UInt64.init) ?? 1)
    if whole.requests != split.requests || whole.failed != split.failed {
        fatalError("whole and split feeding disagree")  // a finding, not library behaviour
    }
    for request in whole.requests {
        _ = request.queryItems
        _ = request.formItems
        _ = request.description
        _ = HTTPServerQueryItem.percentDecoded(request.target, plusAsSpace: true)
    }
    return 0
}

/// Parses `bytes`, in one piece or in pieces of 1...16 bytes from a small generator.
private func parse(_ bytes: [UInt8], limits: HTTPServerLimits, splitSeed: UInt64?)
    -> (requests: [HTTPServerRequest], failed: Bool)
{
    var parser = HTTPRequestParser(limits: limits)
    var requests: [HTTPServerRequest] = []
    var failed = false
    func drain() {
        while !failed, let event = parser.next() {
            switch event {
            case .request(let request): requests.append(request)
            case .continueExpected: continue
            case .failure: failed = true
            }
        }
    }
    guard var state = splitSeed else {
        parser.append(bytes)
        drain()
        return (requests, failed)
    }
    var offset = 0
    while offset < bytes.count && !failed {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        let length = Int(state >> 60) + 1
        parser.append(bytes[offset..<min(bytes.count, offset + length)])
        offset += length
        drain()
    }
    return (requests, failed)
}
