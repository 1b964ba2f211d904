import Auth
import Testing
