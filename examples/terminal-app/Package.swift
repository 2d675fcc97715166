// swift-tools-version:6.0
import Foundation
import PackageDescription

// An app outside the Versola package, depending on it by path as an app with Versola checked
// out beside it does (README: `.package(path: "../versola")`). Here the checkout is two
// directories up, and a path dependency is named after its directory, whatever that is.
let versola = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

let package = Package(
    name: "terminal-app",
    dependencies: [.package(path: versola.path)],
    targets: [
        .executableTarget(
            name: "terminal-app",
            dependencies: [.product(name: "Versola", package: versola.lastPathComponent)],
            swiftSettings: [.swiftLanguageMode(.v6)])
    ]
)
