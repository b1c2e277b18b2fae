;;; vap-lsp.el --- Kubernetes admission policy checks (vap-lsp) for eglot and lsp-mode  -*- lexical-binding: t; -*-

;; Version: 0.1.0
;; Package-Requires: ((emacs "27.1"))
;; Keywords: languages, tools, kubernetes
;; SPDX-License-Identifier: Apache-2.0

;;; Commentary:

;; Registers the vap-lsp language server (`vap-lsp serve') for YAML buffers:
;;
;; - with eglot: in `eglot-server-programs' for `vap-lsp-major-modes', so `M-x eglot' (or
;;   `eglot-ensure' in `yaml-mode-hook') starts it and flymake shows its diagnostics.  Eglot runs
;;   one server a buffer: this replaces yaml-language-server for those modes under eglot.
;; - with lsp-mode (when it is loaded): as an add-on client, so it runs beside
;;   yaml-language-server (`lsp' starts both).
;;
;; Settings (`vap-lsp-kubernetes-version') reach the server as initializationOptions and
;; workspace/didChangeConfiguration, as {"vapLsp": {"kubernetesVersion": "1.33"}}.

;;; Code:

(require 'cl-lib)

(defgroup vap-lsp nil
  "Kubernetes admission policy checks with vap-lsp."
  :group 'tools
  :prefix "vap-lsp-")

(defcustom vap-lsp-command '("vap-lsp" "serve")
  "Command line of the vap-lsp server.
E.g. (\"/path/to/.venv/bin/python\" \"-m\" \"vap_lsp\" \"serve\")."
  :type '(repeat string))

(defcustom vap-lsp-kubernetes-version nil
  "Kubernetes version to check against, e.g. \"1.33\"; nil for the newest."
  :type '(choice (const :tag "Newest" nil) string))

(defcustom vap-lsp-major-modes '(yaml-mode yaml-ts-mode)
  "Major modes whose buffers vap-lsp checks (under eglot and lsp-mode)."
  :type '(repeat symbol))

(defun vap-lsp-settings ()
  "The server settings, as a plist for JSON: (:vapLsp (...))."
  (list :vapLsp
        (if vap-lsp-kubernetes-version
            (list :kubernetesVersion vap-lsp-kubernetes-version)
          ;; An empty JSON object, not null.
          (make-hash-table))))

;;;; eglot

(defvar eglot-server-programs)
(defvar eglot-workspace-configuration)

(defun vap-lsp--eglot-contact (&optional _interactive)
  "The eglot contact: the command with initializationOptions."
  (append vap-lsp-command (list :initializationOptions (vap-lsp-settings))))

;;;###autoload
(defun vap-lsp-eglot-register ()
  "Make eglot run vap-lsp for `vap-lsp-major-modes' (and send its settings)."
  (setq eglot-server-programs
        (cons (cons vap-lsp-major-modes #'vap-lsp--eglot-contact)
              (cl-remove-if (lambda (entry) (eq (cdr entry) #'vap-lsp--eglot-contact))
                            eglot-server-programs)))
  ;; workspace/didChangeConfiguration on connect; keep other servers' sections.
  (when (listp eglot-workspace-configuration)
    (setq-default eglot-workspace-configuration
                  (cons (cons :vapLsp (plist-get (vap-lsp-settings) :vapLsp))
                        (assq-delete-all :vapLsp (copy-sequence eglot-workspace-configuration))))))

;;;###autoload
(with-eval-after-load 'eglot (vap-lsp-eglot-register))

;;;; lsp-mode

(declare-function lsp-register-client "ext:lsp-mode")
(declare-function make-lsp-client "ext:lsp-mode")
(declare-function lsp-stdio-connection "ext:lsp-mode")
(declare-function lsp-buffer-language "ext:lsp-mode")
(declare-function lsp--set-configuration "ext:lsp-mode")
(defvar lsp--cur-workspace)

;;;###autoload
(defun vap-lsp-lsp-mode-register ()
  "Register vap-lsp with lsp-mode as an add-on beside yaml-language-server."
  (lsp-register-client
   (make-lsp-client
    :new-connection (lsp-stdio-connection (lambda () vap-lsp-command))
    ;; By major mode, not `lsp-activate-on' "yaml": lsp-mode 8.0 (Debian bookworm) gives yaml-mode
    ;; the language id "spring-boot-properties-yaml", so a "yaml" activation never matched there.
    :activation-fn (lambda (_file-name mode)
                     (or (memq mode vap-lsp-major-modes)
                         (equal (lsp-buffer-language) "yaml")))
    :add-on? t
    :server-id 'vap-lsp
    :initialization-options #'vap-lsp-settings
    :initialized-fn (lambda (workspace)
                      ;; What lsp-mode's `with-lsp-workspace' does.
                      (let ((lsp--cur-workspace workspace))
                        (lsp--set-configuration (vap-lsp-settings)))))))

;;;###autoload
(with-eval-after-load 'lsp-mode (vap-lsp-lsp-mode-register))

(provide 'vap-lsp)
;;; vap-lsp.el ends here
