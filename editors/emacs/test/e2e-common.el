;;; e2e-common.el --- Helpers shared by the eglot and lsp-mode end-to-end tests  -*- lexical-binding: t; -*-

;;; Code:

(require 'cl-lib)
(require 'subr-x)

(defun vap-lsp-test--out (fmt &rest args)
  "Print FMT with ARGS and a newline on stdout, for the pytest wrapper to read."
  (princ (concat (apply #'format fmt args) "\n")))

(defun vap-lsp-test--wait (predicate seconds)
  "Run the event loop until PREDICATE is non-nil or SECONDS pass."
  (let ((deadline (+ (float-time) seconds)))
    (while (and (not (funcall predicate)) (< (float-time) deadline))
      (accept-process-output nil 0.05))
    (funcall predicate)))

(provide 'e2e-common)
;;; e2e-common.el ends here
