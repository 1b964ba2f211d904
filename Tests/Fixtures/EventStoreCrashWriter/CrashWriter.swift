@main struct CrashWriter { static func main() {} }
